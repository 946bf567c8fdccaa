// Throughput of the whatsapp, ical and takeout importers on generated ≥100 MB inputs (bench/data, never
// committed): records/s and peak RSS through importFile → in-process RS → SQLite, printed beside a raw-SQL
// floor (the same record JSON inserted into a bare better-sqlite3 table, same batches) and the ratio.
// Usage: npx tsx bench/import-life.ts [--mb 100] [--only whatsapp,ical,takeout]
import { execFileSync } from "node:child_process";
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { hashToken, newToken } from "../src/core/ids.js";
import { importFile } from "../src/importers/import-file.js";
import { findFormat } from "../src/importers/registry.js";
import { createApp } from "../src/rs/app.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1]! : fallback;
};
const targetBytes = Number(arg("mb", "100")) * 1e6;
const only = arg("only", "whatsapp,ical,takeout").split(",");
const DATA = join(import.meta.dirname, "data");
mkdirSync(DATA, { recursive: true });

async function writeLines(
  path: string,
  make: (i: number) => string,
  options: { trailer?: string; bytes?: number } = {},
): Promise<void> {
  const out = createWriteStream(path);
  let bytes = 0;
  for (let i = 0; bytes < (options.bytes ?? targetBytes); i++) {
    const line = make(i);
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  out.write(options.trailer ?? "");
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
}

const p2 = (n: number) => String(n).padStart(2, "0");
const WORDS =
  "see you at the station tomorrow bring cake weekend plans dinner train late sorry call me".split(" ");
const phrase = (i: number, n: number) =>
  Array.from({ length: n }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(" ");

async function whatsappFile(): Promise<string> {
  const path = join(DATA, `WhatsApp Chat with Bench ${targetBytes / 1e6}MB.txt`);
  if (existsSync(path)) return path;
  const start = Date.UTC(2015, 0, 1);
  await writeLines(path, (i) => {
    const t = new Date(start + i * 20_000);
    const stamp = `${p2(t.getUTCDate())}/${p2(t.getUTCMonth() + 1)}/${t.getUTCFullYear()}, ${p2(t.getUTCHours())}:${p2(t.getUTCMinutes())}`;
    const extra = i % 10 === 0 ? `\n${phrase(i + 1, 6)}` : "";
    const body = i % 50 === 0 ? "<Media omitted>" : `${phrase(i, 8)} ${i}${extra}`;
    return `${stamp} - ${i % 3 ? "Alice" : "Bob"}: ${body}\n`;
  });
  return path;
}

async function icalFile(): Promise<string> {
  const path = join(DATA, `calendar-${targetBytes / 1e6}MB.ics`);
  if (existsSync(path)) return path;
  const head = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nX-WR-CALNAME:Bench\r\nX-WR-TIMEZONE:Europe/Berlin\r\n";
  const out = createWriteStream(path);
  out.write(head);
  await new Promise<void>((resolve) => out.end(resolve));
  const start = Date.UTC(2010, 0, 1);
  const ical = (t: Date) =>
    `${t.getUTCFullYear()}${p2(t.getUTCMonth() + 1)}${p2(t.getUTCDate())}T${p2(t.getUTCHours())}${p2(t.getUTCMinutes())}00`;
  const events = createWriteStream(path, { flags: "a" });
  let bytes = 0;
  for (let i = 0; bytes < targetBytes; i++) {
    const t = new Date(start + i * 3_600_000);
    const lines = [
      "BEGIN:VEVENT",
      `UID:bench-${i}@example.com`,
      `DTSTART;TZID=Europe/Berlin:${ical(t)}`,
      `DTEND;TZID=Europe/Berlin:${ical(new Date(t.getTime() + 1_800_000))}`,
      `SUMMARY:${phrase(i, 4)}`,
      `DESCRIPTION:${phrase(i, 20)} ${phrase(i + 3, 10)}`,
      `LOCATION:Room ${i % 40}`,
      "ORGANIZER;CN=Ann:mailto:ann@example.com",
      `ATTENDEE;CN=Bob;PARTSTAT=ACCEPTED:mailto:bob${i % 9}@example.com`,
      ...(i % 20 === 0 ? ["RRULE:FREQ=WEEKLY;COUNT=10"] : []),
      "END:VEVENT",
      "",
    ].join("\r\n");
    bytes += lines.length;
    if (!events.write(lines)) await new Promise<void>((resolve) => events.once("drain", () => resolve()));
  }
  events.write("END:VCALENDAR\r\n");
  await new Promise<void>((resolve) => events.end(resolve));
  return path;
}

async function takeoutFile(): Promise<string> {
  const path = join(DATA, `takeout-${targetBytes / 1e6}MB.zip`);
  if (existsSync(path)) return path;
  const root = mkdtempSync(join(tmpdir(), "pdpp-bench-takeout-"));
  try {
    const products = ["Search", "YouTube", "Maps"];
    for (const product of products) {
      mkdirSync(join(root, "Takeout", "My Activity", product), { recursive: true });
      await writeLines(
        join(root, "Takeout", "My Activity", product, "MyActivity.json"),
        (i) =>
          `${i === 0 ? "[" : ","}${JSON.stringify({
            header: product,
            title: `${product === "Search" ? "Searched for" : "Viewed"} ${phrase(i, 5)} ${i}`,
            titleUrl: `https://www.example.com/${product.toLowerCase()}?q=${i}`,
            time: new Date(Date.UTC(2016, 0, 1) + i * 60_000).toISOString(),
            products: [product],
            activityControls: [`${product} history`],
          })}\n`,
        { trailer: "]", bytes: targetBytes / 4 },
      );
    }
    mkdirSync(join(root, "Takeout", "Chrome"), { recursive: true });
    await writeLines(
      join(root, "Takeout", "Chrome", "BrowserHistory.json"),
      (i) =>
        `${i === 0 ? '{"Browser History": [' : ","}${JSON.stringify({
          favicon_url: "https://www.example.org/favicon.ico",
          page_transition: i % 2 ? "LINK" : "TYPED",
          title: `${phrase(i, 6)} ${i}`,
          url: `https://site${i % 500}.example.org/page/${i}`,
          client_id: "abc123==",
          time_usec: 1_500_000_000_000_000 + i * 1_000_000,
        })}\n`,
      { trailer: "]}", bytes: targetBytes / 4 },
    );
    writeFileSync(join(root, "Takeout", "archive_browser.html"), "<html></html>");
    execFileSync("zip", ["-q", "-r", path, "Takeout"], { cwd: root });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return path;
}

/** The floor: the same records' JSON into a bare table, one transaction per 500 rows. */
async function rawFloor(kind: string, path: string, flags: Record<string, unknown>): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-bench-floor-"));
  const db = new Database(join(dir, "floor.db"));
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec("CREATE TABLE r (stream TEXT, id TEXT, json TEXT, PRIMARY KEY (stream, id))");
    const insert = db.prepare("INSERT OR REPLACE INTO r VALUES (?, ?, ?)");
    const flush = db.transaction((rows: [string, string, string][]) => {
      for (const row of rows) insert.run(...row);
    });
    const source = await findFormat(kind).open(path, { flags });
    let rows: [string, string, string][] = [];
    let n = 0;
    const started = performance.now();
    for await (const item of source.items) {
      if ("error" in item || !("data" in item)) continue;
      const id = String(Object.values(item.data)[0]);
      rows.push([item.stream, id, JSON.stringify(item.data)]);
      n++;
      if (rows.length === 500) {
        flush(rows);
        rows = [];
      }
    }
    flush(rows);
    return n / ((performance.now() - started) / 1000);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(kind: string, path: string, flags: Record<string, unknown>) {
  const dir = mkdtempSync(join(tmpdir(), "pdpp-bench-life-"));
  const store = await openSqliteStore({ path: join(dir, "pdpp.db") });
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 100);
  try {
    const ownerToken = newToken("owner");
    await store.putOwnerToken(hashToken(ownerToken));
    const app = createApp({ store });
    const started = performance.now();
    const result = await importFile(
      { fetch: async (r) => app.fetch(r), baseUrl: "http://127.0.0.1", ownerToken },
      { kind, path, flags, onProgress: () => (peak = Math.max(peak, process.memoryUsage().rss)) },
    );
    const seconds = (performance.now() - started) / 1000;
    return {
      records: result.read,
      rejected: result.rejected,
      seconds,
      rate: result.read / seconds,
      peakMb: peak / 1024 ** 2,
    };
  } finally {
    clearInterval(timer);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const cases: Record<string, { file: () => Promise<string>; flags: Record<string, unknown> }> = {
  whatsapp: { file: whatsappFile, flags: { timeZone: "Europe/London" } },
  ical: { file: icalFile, flags: {} },
  takeout: { file: takeoutFile, flags: {} },
};
mkdirSync(join(import.meta.dirname, "results"), { recursive: true });
for (const kind of only) {
  const c = cases[kind]!;
  const path = await c.file();
  const mb = statSync(path).size / 1e6;
  const project = await measure(kind, path, c.flags);
  const floor = await rawFloor(kind, path, c.flags);
  const row = {
    importer: kind,
    file_mb: Math.round(mb),
    records: project.records,
    rejected: project.rejected,
    seconds: Number(project.seconds.toFixed(1)),
    records_per_s: Math.round(project.rate),
    peak_rss_mb: Math.round(project.peakMb),
    floor_records_per_s: Math.round(floor),
    ratio_floor_over_project: Number((floor / project.rate).toFixed(2)),
  };
  console.log(JSON.stringify(row));
  writeFileSync(
    join(import.meta.dirname, "results", `import-${kind}.json`),
    `${JSON.stringify(row, null, 2)}\n`,
  );
}
