// `pdpp import …` through commander against an in-process app over SQLite: summary text, flags, errors.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import cliProgress from "cli-progress";
import { Command } from "commander";
import {
  formatSummary,
  type ImportFlags,
  nothingImported,
  PROGRESS_FORMAT,
  progressPayload,
  register,
  runImportCommand,
} from "../../src/cli/commands/import.js";
import type { CliContext } from "../../src/cli/context.js";
import type { ImportKind } from "../../src/importers/import-file.js";
import { type OwnerApp, openOwnerApp } from "../helpers-importers/owner-app.js";
import { simpleMbox } from "../helpers-importers/simple-mbox.js";

// The test runner reports over this process's stdout, so the action's printing is not intercepted here:
// the command's two halves (run, then format the summary) are called the way its action calls them.
function contextOf(app: OwnerApp): CliContext {
  return { home: app.dir, openApp: async () => ({ ...app.api, close: async () => {} }) };
}

async function run(app: OwnerApp, args: string[]): Promise<string> {
  const context = contextOf(app);
  const [kind, file, ...rest] = args as [ImportKind, string, ...string[]];
  const flags: ImportFlags = {};
  for (let i = 0; i < rest.length; i++) {
    const name = rest[i]!.replace(/^--/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (name === "infer") flags.infer = true;
    else (flags as Record<string, string>)[name] = rest[++i]!;
  }
  const result = await runImportCommand(context, kind, file, flags);
  return formatSummary(result, file, { inferred: flags.infer === true, savedManifest: flags.saveManifest });
}

test("pdpp import registers one subcommand per format, each with --help text", () => {
  const program = new Command("pdpp");
  register(program, { home: "", openApp: async () => Promise.reject(new Error("unused")) });
  const importCommand = program.commands.find((c) => c.name() === "import")!;
  assert.deepEqual(
    importCommand.commands.map((c) => c.name()),
    [
      "mbox",
      "chatgpt",
      "claude",
      "claude-code",
      "codex",
      "jsonl",
      "json",
      "csv",
      "whatsapp",
      "ical",
      "takeout",
    ],
  );
  const csvHelp = importCommand.commands.find((c) => c.name() === "csv")!.helpInformation();
  for (const flag of ["--connection <label>", "--manifest <file>", "--infer", "--stream <name>"]) {
    assert.ok(csvHelp.includes(flag), flag);
  }
  const mboxHelp = importCommand.commands.find((c) => c.name() === "mbox")!.helpInformation();
  assert.ok(!mboxHelp.includes("--infer"));
});

test("pdpp import mbox prints a summary; a re-run reports everything unchanged", async () => {
  const app = await openOwnerApp();
  const dir = mkdtempSync(join(tmpdir(), "pdpp-cli-import-"));
  try {
    const path = join(dir, "mail.mbox");
    writeFileSync(path, `${simpleMbox(12)}\nFrom broken\nnot a header\n`);
    const out = await run(app, ["mbox", path, "--connection", "Work mail"]);
    const lines = out.trimEnd().split("\n");
    assert.match(lines[0]!, /^imported mail\.mbox into Work mail \(cin_[0-9a-f]{12}, connector mbox\)$/);
    assert.match(lines[1]!, /^ {2}read 12 records in \d+\.\d s, 1 batch$/);
    assert.equal(lines[2], "  added 12  updated 0  unchanged 0  rejected 1");
    assert.equal(lines[3], "  rejected:");
    assert.match(lines[4]!, /^ {4}message 13 \(byte \d+\): unparseable message: no header block found$/);
    const again = await run(app, ["mbox", path, "--connection", "Work mail"]);
    assert.equal(again.split("\n")[2], "  added 0  updated 0  unchanged 12  rejected 1");
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("pdpp import csv needs --manifest or --infer, and imports with --infer", async () => {
  const app = await openOwnerApp();
  const dir = mkdtempSync(join(tmpdir(), "pdpp-cli-import-"));
  try {
    const path = join(dir, "tx.csv");
    writeFileSync(path, "id,date,amount\n1,2024-01-01,5.5\n2,2024-01-02,-3\n");
    await assert.rejects(run(app, ["csv", path]), {
      code: "invalid_request",
      message: /--manifest <file> or --infer/,
    });
    const out = await run(app, ["csv", path, "--infer", "--stream", "transactions"]);
    assert.match(out, /connector csv\.transactions\)/);
    assert.match(out, /added 2 {2}updated 0 {2}unchanged 0 {2}rejected 0/);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("--infer says what it inferred; --save-manifest writes it for a later --manifest import", async () => {
  const app = await openOwnerApp();
  const dir = mkdtempSync(join(tmpdir(), "pdpp-cli-import-"));
  try {
    const path = join(dir, "steps.csv");
    writeFileSync(path, "day,steps,note\n2024-01-01,8000,walk\n2024-01-02,12000,hike\n");
    const saved = join(dir, "steps.manifest.json");
    const out = await run(app, ["csv", path, "--infer", "--connector", "health", "--save-manifest", saved]);
    assert.deepEqual(out.trimEnd().split("\n").slice(3), [
      "  inferred health:steps: key content_hash (no id column: a hash of the whole record), time day, title note",
      `  manifest saved to ${saved}; edit it and re-import with --manifest ${saved}`,
    ]);
    const again = await run(app, ["csv", path, "--manifest", saved]);
    assert.equal(again.split("\n")[2], "  added 0  updated 0  unchanged 2  rejected 0");
    await assert.rejects(run(app, ["csv", path, "--manifest", saved, "--save-manifest", saved]), {
      code: "invalid_request",
      message: "--save-manifest writes an inferred manifest; pass --infer too.",
    });
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a file that stores nothing is one error line and leaves no connection behind; a ChatGPT export defaults to 'ChatGPT'", async () => {
  const app = await openOwnerApp();
  const dir = mkdtempSync(join(tmpdir(), "pdpp-cli-import-"));
  try {
    const wrong = join(dir, "bank.csv");
    writeFileSync(wrong, "id,amount\n1,2\n");
    const result = await runImportCommand(contextOf(app), "chatgpt", wrong, {});
    assert.equal(result.connectionRemoved, true);
    assert.equal(result.connectionId, null);
    assert.equal(
      nothingImported(result, wrong),
      "nothing imported from bank.csv: 1 item rejected, the first at byte 0: expected a top-level JSON array ([…]). Is it a chatgpt file? Nothing was stored.",
    );
    assert.deepEqual(await app.store.listConnections(), []);

    const empty = join(dir, "empty.json");
    writeFileSync(empty, "[]");
    const none = await runImportCommand(contextOf(app), "chatgpt", empty, {});
    assert.equal(
      nothingImported(none, empty),
      "nothing imported from empty.json: it holds no chatgpt records. Is it a chatgpt file? Nothing was stored.",
    );
    assert.deepEqual(await app.store.listConnections(), []);

    const exported = join(dir, "conversations.json");
    writeFileSync(
      exported,
      JSON.stringify([{ id: "c1", title: "Hello", create_time: 1704067200, mapping: {} }]),
    );
    const ok = await run(app, ["chatgpt", exported]);
    assert.match(ok, /^imported conversations\.json into ChatGPT \(cin_[0-9a-f]{12}, connector chatgpt\)$/m);
    assert.deepEqual(
      (await app.store.listConnections()).map((c) => c.display_name),
      ["ChatGPT"],
    );
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a failed --infer import leaves neither its inferred connector nor a connection behind", async () => {
  const app = await openOwnerApp();
  const dir = mkdtempSync(join(tmpdir(), "pdpp-cli-import-"));
  try {
    const path = join(dir, "broken.jsonl");
    writeFileSync(path, "{not json\n[1,2]\n");
    const before = (await app.store.listManifests()).map((m) => m.connector_key);
    const result = await runImportCommand(contextOf(app), "jsonl", path, { infer: true });
    assert.equal(result.connectionRemoved, true);
    assert.match(
      nothingImported(result, path),
      /^nothing imported from broken\.jsonl: 2 items rejected, the first at line 1: /,
    );
    assert.deepEqual(
      (await app.store.listManifests()).map((m) => m.connector_key),
      before,
    );
    assert.deepEqual(await app.store.listConnections(), []);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the progress line fills every placeholder: MB read of the file's MB, records, eta", () => {
  const format = cliProgress.Format.Formatter as unknown as (
    options: Record<string, unknown>,
    params: Record<string, unknown>,
    payload: Record<string, unknown>,
  ) => string;
  const line = format(
    {
      format: PROGRESS_FORMAT,
      barsize: 4,
      barCompleteString: "#",
      barIncompleteString: ".",
      barGlue: "",
      autopaddingChar: " ",
    },
    { progress: 0.5, value: 5_242_880, total: 10_485_760, eta: 3, startTime: Date.now(), maxWidth: 200 },
    progressPayload({ read: 1234, bytesRead: 5_242_880, totalBytes: 10_485_760 }),
  );
  assert.equal(line, "importing [#.] 50% | 5.0/10.0 MB | 1234 records | eta  3s");
});
