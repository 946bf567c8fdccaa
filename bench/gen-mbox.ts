// Writes a large synthetic mbox for the import throughput benchmark (not committed: bench/data is ignored).
// Usage: tsx bench/gen-mbox.ts --size 1GB [--body 4096] [--out bench/data/bench.mbox] [--seed 1]
import { createWriteStream, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { createRng } from "../src/sample/prng.js";

const { values } = parseArgs({
  options: {
    size: { type: "string", default: "200MB" },
    body: { type: "string", default: "4096" },
    out: { type: "string", default: "bench/data/bench.mbox" },
    seed: { type: "string", default: "1" },
  },
});

function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(B|KB|MB|GB)?$/i.exec(text.trim());
  if (!match) throw new Error(`--size must look like 200MB or 1GB, got ${text}`);
  const unit = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[(match[2] ?? "B").toUpperCase() as "B"];
  return Math.round(Number(match[1]) * unit);
}

const WORDS =
  "atlas budget launch review vendor contract latency deploy meeting quarter invoice travel lisbon report draft customer onboarding metrics roadmap hiring design database migration release planning offsite agenda notes follow-up approval receipt schedule".split(
    " ",
  );

const target = parseSize(values.size!);
const bodyBytes = Number(values.body);
const rng = createRng(Number(values.seed));
mkdirSync(dirname(values.out!), { recursive: true });
const out = createWriteStream(values.out!);
let written = 0;
let count = 0;
const start = Date.UTC(2020, 0, 1);

function body(): string {
  const words: string[] = [];
  let size = 0;
  while (size < bodyBytes) {
    const w = WORDS[Math.floor(rng.next() * WORDS.length)]!;
    words.push(size % 80 < 8 ? `\n${w}` : w);
    size += w.length + 1;
  }
  return words.join(" ").slice(0, bodyBytes);
}

while (written < target) {
  const date = new Date(start + count * 47_000);
  const sender = rng.int(1, 500);
  const message = [
    `From user${sender}@example.com ${date.toUTCString().replace(/,/g, "")}`,
    `Message-ID: <bench-${count}@example.com>`,
    `X-GM-THRID: ${1700000000000000000n + BigInt(Math.floor(count / 4))}`,
    `X-Gmail-Labels: Inbox,${WORDS[count % WORDS.length]}`,
    `From: User ${sender} <user${sender}@example.com>`,
    "To: me@example.com",
    `Subject: ${WORDS[rng.int(0, WORDS.length - 1)]} ${WORDS[rng.int(0, WORDS.length - 1)]} #${count}`,
    `Date: ${date.toUTCString()}`,
    "Content-Type: text/plain; charset=utf-8",
    "",
    body(),
    "",
    "",
  ].join("\n");
  written += Buffer.byteLength(message);
  count++;
  if (!out.write(message)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
}
await new Promise<void>((resolve) => out.end(resolve));
process.stdout.write(`wrote ${count} messages, ${(written / 1024 ** 2).toFixed(1)} MB to ${values.out}\n`);
