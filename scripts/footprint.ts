// `npm run footprint`: every MCP footprint budget of 30-mcp.md measured on the fat fixtures.
import { measureFootprint } from "../test/mcp/fixtures/fat.js";

const { rows, notes } = await measureFootprint();
const width = Math.max(...rows.map((r) => r.what.length));
console.log(`${"what".padEnd(width)}  ${"measured".padStart(9)}  ${"budget".padStart(9)}  ok`);
let failed = false;
for (const row of rows) {
  const ok = row.measured <= row.budget;
  failed ||= !ok;
  console.log(
    `${row.what.padEnd(width)}  ${String(row.measured).padStart(7)} ${row.unit.padEnd(5)} ${String(row.budget).padStart(7)} ${row.unit.padEnd(5)} ${ok ? "yes" : "NO"}`,
  );
}
for (const note of notes) console.log(`note: ${note}`);
process.exitCode = failed ? 1 : 0;
