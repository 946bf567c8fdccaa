// Generated inputs of every import format for the import benchmark (bench/import-formats.ts), in their
// real on-disk layouts, each built once into bench/data (ignored by git) and reused across runs.
import { execFileSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  buildClaudeCodeSession,
  buildClaudeExport,
  buildCodexRollout,
  fakeUuid,
} from "../src/sample/agent-sample.js";
import { buildConversations } from "../src/sample/chat-sample.js";
import { createRng } from "../src/sample/prng.js";
import { ensureJsonlFile } from "./import-jsonl.js";

const DATA = join(import.meta.dirname, "data");
const START = Date.UTC(2024, 0, 1);

/** The formats the benchmark knows how to generate, and each one's importer flags. */
export const BENCH_FORMATS: Record<string, { flags: Record<string, unknown> }> = {
  "claude-code": { flags: {} },
  codex: { flags: {} },
  claude: { flags: {} },
  chatgpt: { flags: {} },
  whatsapp: { flags: { timeZone: "Europe/London" } },
  ical: { flags: {} },
  takeout: { flags: {} },
  mbox: { flags: {} },
  jsonl: { flags: {} },
};

async function writeLines(
  path: string,
  make: (i: number) => string,
  options: { bytes: number; trailer?: string; head?: string },
): Promise<void> {
  const partial = `${path}.partial`;
  const out = createWriteStream(partial);
  let bytes = 0;
  if (options.head) out.write(options.head);
  for (let i = 0; bytes < options.bytes; i++) {
    const line = make(i);
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  out.write(options.trailer ?? "");
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  execFileSync("mv", [partial, path]);
}

const p2 = (n: number) => String(n).padStart(2, "0");
const WORDS =
  "see you at the station tomorrow bring cake weekend plans dinner train late sorry call me".split(" ");
const phrase = (i: number, n: number) =>
  Array.from({ length: n }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(" ");

/** A folder of session logs (claude-code, codex) of about `bytes`. */
function logFolder(kind: "claude-code" | "codex", root: string, bytes: number): void {
  const rng = createRng(7);
  let written = 0;
  for (let s = 0; written < bytes; s++) {
    const id = fakeUuid(rng);
    const startMs = START + s * 600_000;
    const options = { sessionId: id, startMs, cwd: "/home/bench", turns: 40 };
    let dir: string;
    let text: string;
    let name: string;
    if (kind === "claude-code") {
      dir = join(root, `-home-bench-p${s % 20}`);
      text = buildClaudeCodeSession(rng, options);
      name = `${id}.jsonl`;
    } else {
      dir = join(root, "2024", "01", p2(1 + (s % 28)));
      text = buildCodexRollout(rng, options);
      name = `rollout-2024-01-01T00-00-00-${id}.jsonl`;
    }
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, name), text);
    written += text.length;
  }
}

/** A JSON array file of about `bytes`, from batches of elements. */
async function jsonArrayFile(path: string, bytes: number, batch: (i: number) => unknown[]): Promise<void> {
  await writeLines(
    path,
    (i) =>
      `${i === 0 ? "" : ",\n"}${batch(i)
        .map((c) => JSON.stringify(c))
        .join(",\n")}`,
    { bytes, head: "[\n", trailer: "\n]\n" },
  );
}

async function whatsappFile(path: string, bytes: number): Promise<void> {
  const start = Date.UTC(2015, 0, 1);
  await writeLines(
    path,
    (i) => {
      const t = new Date(start + i * 20_000);
      const stamp = `${p2(t.getUTCDate())}/${p2(t.getUTCMonth() + 1)}/${t.getUTCFullYear()}, ${p2(t.getUTCHours())}:${p2(t.getUTCMinutes())}`;
      const extra = i % 10 === 0 ? `\n${phrase(i + 1, 6)}` : "";
      const body = i % 50 === 0 ? "<Media omitted>" : `${phrase(i, 8)} ${i}${extra}`;
      return `${stamp} - ${i % 3 ? "Alice" : "Bob"}: ${body}\n`;
    },
    { bytes },
  );
}

async function icalFile(path: string, bytes: number): Promise<void> {
  const start = Date.UTC(2010, 0, 1);
  const ical = (t: Date) =>
    `${t.getUTCFullYear()}${p2(t.getUTCMonth() + 1)}${p2(t.getUTCDate())}T${p2(t.getUTCHours())}${p2(t.getUTCMinutes())}00`;
  await writeLines(
    path,
    (i) => {
      const t = new Date(start + i * 3_600_000);
      return [
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
    },
    {
      bytes,
      head: "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nX-WR-CALNAME:Bench\r\nX-WR-TIMEZONE:Europe/Berlin\r\n",
      trailer: "END:VCALENDAR\r\n",
    },
  );
}

async function takeoutZip(path: string, bytes: number): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "pdpp-bench-takeout-"));
  try {
    for (const product of ["Search", "YouTube", "Maps"]) {
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
        { trailer: "]", bytes: bytes / 4 },
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
      { trailer: "]}", bytes: bytes / 4 },
    );
    execFileSync("zip", ["-q", "-r", path, "Takeout"], { cwd: root });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The input of `kind` of about `mb` MiB (generated on first use); returns its path. */
export async function benchInput(kind: string, mb: number, root: string = DATA): Promise<string> {
  const bytes = mb * 1024 * 1024;
  const dir = join(root, `import-${mb}mb`);
  mkdirSync(dir, { recursive: true });
  const file = (name: string) => join(dir, name);
  switch (kind) {
    case "claude-code":
    case "codex": {
      const root = file(kind);
      if (!existsSync(root)) {
        const partial = `${root}.partial`;
        rmSync(partial, { recursive: true, force: true });
        logFolder(kind, partial, bytes);
        execFileSync("mv", [partial, root]);
      }
      return root;
    }
    case "claude": {
      const path = file("claude-conversations.json");
      const rng = createRng(7);
      if (!existsSync(path))
        await jsonArrayFile(path, bytes, (i) =>
          buildClaudeExport(rng, { count: 200, startMs: START + i * 86_400_000 * 30 }),
        );
      return path;
    }
    case "chatgpt": {
      const path = file("chatgpt-conversations.json");
      const rng = createRng(7);
      if (!existsSync(path))
        await jsonArrayFile(path, bytes, (i) =>
          (buildConversations(rng, { count: 100, startSeconds: 1.6e9 + i * 1e7 }) as { id: string }[]).map(
            (c, k) => ({ ...c, id: `${c.id}-${i}-${k}`, conversation_id: `${c.id}-${i}-${k}` }),
          ),
        );
      return path;
    }
    case "whatsapp": {
      const path = file("WhatsApp Chat with Bench.txt");
      if (!existsSync(path)) await whatsappFile(path, bytes);
      return path;
    }
    case "ical": {
      const path = file("calendar.ics");
      if (!existsSync(path)) await icalFile(path, bytes);
      return path;
    }
    case "takeout": {
      const path = file("takeout.zip");
      if (!existsSync(path)) await takeoutZip(path, bytes);
      return path;
    }
    case "mbox": {
      const path = file("bench.mbox");
      if (!existsSync(path)) {
        execFileSync(
          process.execPath,
          ["--import", "tsx", "bench/gen-mbox.ts", "--size", `${mb}MB`, "--out", path],
          { stdio: "inherit" },
        );
      }
      return path;
    }
    case "jsonl":
      // ~250 bytes a record.
      return ensureJsonlFile(Math.round(bytes / 250));
    default:
      throw new Error(`no bench input for ${kind}`);
  }
}
