// `pdpp import mbox|chatgpt|jsonl|json|csv <file>`: stream a file into a connection, with a progress bar on a
// TTY and a one-screen summary at the end.
import { writeFileSync } from "node:fs";
import { basename } from "node:path";
import cliProgress from "cli-progress";
import { type Command, Option } from "commander";
import { homePaths } from "../../config/home.js";
import { PdppError } from "../../core/errors.js";
import type { Manifest } from "../../core/manifest.js";
import type { GenericOptions } from "../../importers/generic.js";
import { loadManifestFile } from "../../importers/generic.js";
import {
  defaultConnectionLabel,
  defaultImportPath,
  type ImportFileResult,
  type ImportKind,
  importFile,
} from "../../importers/import-file.js";
import { CONTENT_HASH_FIELD } from "../../importers/infer.js";
import type { CliContext } from "../context.js";

export interface ImportFlags {
  connection?: string;
  manifest?: string;
  infer?: boolean;
  stream?: string;
  connector?: string;
  saveManifest?: string;
  batchSize?: string;
}

const DESCRIPTIONS: Record<ImportKind, string> = {
  mbox: "import an mbox file (e.g. a Google Takeout mail export) into stream `messages`",
  chatgpt:
    "import a ChatGPT export (conversations.json or the export zip) into `conversations` and `messages`",
  claude:
    "import a claude.ai data export (the zip or its conversations.json) into `conversations` and `messages`",
  "claude-code":
    "import Claude Code session logs (default ~/.claude/projects) into `sessions` and `messages`; unchanged log files are skipped",
  codex:
    "import Codex CLI session rollouts (default $CODEX_HOME/sessions, ~/.codex/sessions) into `sessions` and `messages`; unchanged files are skipped",
  jsonl: "import a JSONL file (one record object per line) with --manifest <file> or --infer",
  json: "import a JSON file (a top-level array of record objects) with --manifest <file> or --infer",
  csv: "import a CSV file (a header row, then one record per row) with --manifest <file> or --infer",
};

export function register(program: Command, context: CliContext): void {
  const command = program
    .command("import")
    .description(
      "import a data file into a connection (mbox, chatgpt, claude, claude-code, codex, jsonl, json, csv)",
    );
  for (const kind of Object.keys(DESCRIPTIONS) as ImportKind[]) {
    const folder = defaultImportPath(kind);
    const label = defaultConnectionLabel(kind, "");
    const sub = command
      .command(kind)
      .description(DESCRIPTIONS[kind])
      .argument(
        folder ? "[dir]" : "<file>",
        folder ? `the folder of logs to import (default: ${folder})` : "the file to import",
      )
      .option(
        "--connection <label>",
        `account label of the connection (default: ${label ? `"${label}"` : "the file name"})`,
      )
      .addOption(new Option("--batch-size <n>", "records per transaction").default("500").hideHelp());
    if (kind === "csv" || kind === "json" || kind === "jsonl") {
      sub
        .option("--manifest <file>", "connector manifest (JSON) declaring the stream")
        .option("--infer", "infer the manifest from the file (types, key, time field)")
        .option(
          "--stream <name>",
          "stream to write (required if the manifest has several; names an inferred one)",
        )
        .option("--connector <key>", "connector key of an inferred manifest (default: <format>.<file name>)")
        .option(
          "--save-manifest <file>",
          "with --infer: also write the inferred manifest, to edit and pass as --manifest",
        );
    }
    sub.action(async (given: string | undefined, flags: ImportFlags) => {
      const file = given ?? folder ?? "";
      const result = await runImportCommand(context, kind, file, flags);
      process.stdout.write(
        formatSummary(result, file, { inferred: flags.infer === true, savedManifest: flags.saveManifest }),
      );
      if (result.connectionRemoved || (result.read === 0 && result.rejected > 0)) process.exitCode = 1;
    });
  }
}

export async function runImportCommand(
  context: CliContext,
  kind: ImportKind,
  file: string,
  flags: ImportFlags,
): Promise<ImportFileResult> {
  const generic: GenericOptions = {};
  if (kind === "csv" || kind === "json" || kind === "jsonl") {
    if (flags.manifest && flags.infer)
      throw new PdppError("invalid_request", "pass either --manifest or --infer, not both.");
    if (!flags.manifest && !flags.infer) {
      throw new PdppError("invalid_request", `pdpp import ${kind} needs --manifest <file> or --infer.`);
    }
    if (flags.saveManifest && !flags.infer)
      throw new PdppError(
        "invalid_request",
        "--save-manifest writes an inferred manifest; pass --infer too.",
      );
    if (flags.manifest) generic.manifest = loadManifestFile(flags.manifest);
    generic.infer = flags.infer === true;
    generic.stream = flags.stream;
    generic.connectorKey = flags.connector;
  }
  const batchSize = Number(flags.batchSize ?? 500);
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new PdppError("invalid_request", "--batch-size must be a positive integer.");
  }
  // cli-progress draws on stderr, so that is the stream that must be a terminal.
  const bar = process.stderr.isTTY ? newProgressBar() : null;
  let started = false;
  const app = await context.openApp();
  try {
    const result = await importFile(app, {
      kind,
      path: file,
      connectionLabel: flags.connection,
      generic,
      stateDir: homePaths(context.home).importState,
      batchSize,
      onProgress: bar
        ? (p) => {
            const total = Math.max(1, p.totalBytes ?? p.bytesRead);
            if (!started) {
              bar.start(total, 0, progressPayload({ read: 0, bytesRead: 0, totalBytes: total }));
              started = true;
            }
            bar.setTotal(total);
            bar.update(Math.min(p.bytesRead, total), progressPayload(p));
          }
        : undefined,
    });
    if (flags.saveManifest) {
      writeFileSync(flags.saveManifest, `${JSON.stringify(result.manifest, null, 2)}\n`);
    }
    return result;
  } finally {
    if (started) bar?.stop();
    await app.close();
  }
}

/** Every {name} here is cli-progress's own or a payload key passed to start()/update() above. */
export const PROGRESS_FORMAT =
  "importing [{bar}] {percentage}% | {done_mb}/{total_mb} MB | {records} records | eta {eta_formatted}";

/** The bar's own values for one progress report: records read, MB read of the file's MB. */
export function progressPayload(p: { read: number; bytesRead: number; totalBytes: number | null }): {
  records: number;
  done_mb: string;
  total_mb: string;
} {
  const total = Math.max(1, p.totalBytes ?? p.bytesRead);
  return { records: p.read, done_mb: mb(p.bytesRead), total_mb: mb(total) };
}

const mb = (bytes: number) => (bytes / 1_048_576).toFixed(1);

function newProgressBar(): cliProgress.SingleBar {
  return new cliProgress.SingleBar(
    {
      format: PROGRESS_FORMAT,
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
}

/** The one-screen summary printed after an import. */
export function formatSummary(
  result: ImportFileResult,
  file: string,
  options: { inferred?: boolean; savedManifest?: string } = {},
): string {
  const lines = [
    result.connectionRemoved
      ? `nothing imported from ${basename(file)}: no record could be stored, so no ${result.connectorKey} connection was created`
      : `imported ${basename(file)} into ${result.connectionLabel} (${result.connectionId}, connector ${result.connectorKey})`,
    `  read ${result.read} records in ${(result.durationMs / 1000).toFixed(1)} s, ${plural(result.batches, "batch", "batches")}`,
    `  added ${result.added}  updated ${result.updated}  unchanged ${result.unchanged}  rejected ${result.rejected}`,
  ];
  if (result.files) {
    const f = result.files;
    lines.push(
      `  files: ${f.filesRead} read, ${f.files} unchanged since the last import and skipped (their records count as unchanged)`,
    );
  }
  const streams = Object.entries(result.perStream);
  if (streams.length > 1) {
    for (const [stream, c] of streams) {
      lines.push(
        `    ${stream}: added ${c.added}  updated ${c.updated}  unchanged ${c.unchanged}  rejected ${c.rejected}`,
      );
    }
  }
  if (options.inferred) lines.push(...describeInferred(result.manifest, options.savedManifest));
  if (result.rejected > 0) {
    lines.push("  rejected:");
    const shown = result.rejections.slice(0, 10);
    for (const r of shown) lines.push(`    ${r.position}: ${r.reason}`);
    if (result.rejected > shown.length) lines.push(`    … and ${result.rejected - shown.length} more`);
  }
  return `${lines.join("\n")}\n`;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What --infer decided, so the owner can check it (and fix it in a saved manifest). */
function describeInferred(manifest: Manifest, savedTo: string | undefined): string[] {
  const lines = manifest.streams.map((stream) => {
    const key = stream.primary_key.join("+");
    const keyNote = key === CONTENT_HASH_FIELD ? " (no id column: a hash of the whole record)" : "";
    return `  inferred ${manifest.connector_key}:${stream.name}: key ${key}${keyNote}, time ${stream.time_field ?? "none"}, title ${stream.title_field ?? "none"}`;
  });
  lines.push(
    savedTo
      ? `  manifest saved to ${savedTo}; edit it and re-import with --manifest ${savedTo}`
      : "  to adjust it: re-run with --save-manifest <file>, edit, then import with --manifest <file>",
  );
  return lines;
}
