// Checks the conventions Biome cannot (50-style.md): kebab-case file names, a one-line purpose
// comment opening every source file, and file size (soft 300 lines warns, hard 500 fails).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";

const ROOTS = ["src", "test", "bench", "scripts"];
const SOFT_LINES = 300;
const HARD_LINES = 500;
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+)*$/;

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (["node_modules", "results", "data", "dist", "__toolsnaps__"].includes(name)) return [];
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const errors = [];
const warnings = [];
for (const root of ROOTS) {
  let files = [];
  try {
    files = walk(root);
  } catch {
    continue;
  }
  for (const file of files.filter((f) => /\.(ts|tsx|mjs|js)$/.test(f))) {
    const name = basename(file);
    if (!KEBAB.test(name)) errors.push(`${file}: file names are kebab-case`);
    const lines = readFileSync(file, "utf8").split("\n");
    const first = lines[0].startsWith("#!") ? lines[1] : lines[0];
    if (!first?.startsWith("//"))
      errors.push(`${file}: open with a one-line comment saying what the file is for`);
    if (lines.length > HARD_LINES)
      errors.push(`${file}: ${lines.length} lines (hard limit ${HARD_LINES}); split it`);
    else if (lines.length > SOFT_LINES)
      warnings.push(`${file}: ${lines.length} lines (soft limit ${SOFT_LINES})`);
  }
}
for (const w of warnings) console.warn(`warn  ${w}`);
for (const e of errors) console.error(`error ${e}`);
if (errors.length > 0) process.exit(1);
console.log(`conventions ok (${warnings.length} soft warnings)`);
