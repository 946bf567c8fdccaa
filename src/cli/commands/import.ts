// `pdpp import <format> <file>` (one subcommand per registered format) and `pdpp import <file>` (format
// detected from the content): stream a file into a connection, with a progress bar on a TTY and a summary.
import { writeFileSync } from "node:fs";
import { basename } from "node:path";
import cliProgress from "cli-progress";
import { type Command, Help, Option } from "commander";
import { homePaths } from "../../config/home.js";
import { PdppError } from "../../core/errors.js";
import type { Manifest } from "../../core/manifest.js";
import { detectFormat, otherFormat } from "../../importers/detect.js";
import type { GenericOptions } from "../../importers/generic.js";
import { loadManifestFile } from "../../importers/generic.js";
import { type ImportFileResult, type ImportKind, importFile } from "../../importers/import-file.js";
import { CONTENT_HASH_FIELD } from "../../importers/infer.js";
import { type FormatFlag, findFormat, IMPORT_FORMATS, type ImportFormat } from "../../importers/registry.js";
import { DEFAULT_BATCH_SIZE } from "../../importers/run-import.js";
import type { CliContext } from "../context.js";

export interface ImportFlags {
  connection?: string;
  manifest?: string;
  infer?: boolean;
  stream?: string;
  connector?: string;
  saveManifest?: string;
  batchSize?: string;
  /** A format's own flags (registry FormatFlag), e.g. dateOrder for whatsapp. */
  [formatFlag: string]: string | boolean | undefined;
}

export function register(program: Command, context: CliContext): void {
  const command = program
    .command("import")
    .description(
      `import a data file into a connection (${IMPORT_FORMATS.map((f) => f.name).join(", ")}); without a format, detect it from the content`,
    )
    .argument("[file]", "the file (or folder) to import when the format is left to detection")
    .option("--connection <label>", "account label of the connection (default: per format)")
    .addOption(
      new Option("--batch-size <n>", "records per transaction")
        .default(String(DEFAULT_BATCH_SIZE))
        .hideHelp(),
    );
  // Detected formats can take their own flags too: declare each distinct one once on the parent, naming
  // every format that takes it (--time-zone is whatsapp's and ical's).
  const parentFlags = new Map<string, { flag: FormatFlag; formats: string[] }>();
  for (const format of IMPORT_FORMATS) {
    if (format.generic || !format.detect) continue;
    for (const flag of format.flags ?? []) {
      const known = parentFlags.get(flag.flags);
      if (known) known.formats.push(format.name);
      else parentFlags.set(flag.flags, { flag, formats: [format.name] });
    }
  }
  for (const { flag, formats } of parentFlags.values()) {
    const description = formats.length === 1 ? flag.description : "as pdpp import <format> --help says";
    command.addOption(formatOption(flag, `${description} (${formats.join(", ")})`));
  }
  command.action(async (file: string | undefined, flags: ImportFlags) => {
    if (file === undefined) {
      command.help({ error: true });
      return;
    }
    const { format } = await detectFormat(file);
    process.stderr.write(
      `pdpp: ${basename(file)} looks like ${format.name}: importing it as pdpp import ${format.name}\n`,
    );
    await runAndReport(context, format.name, file, flags);
  });

  for (const format of IMPORT_FORMATS) {
    const argument = format.argument ?? { syntax: "<file>", description: "the file to import" };
    const defaultLabel = format.defaultLabel ? `"${format.defaultLabel("")}"` : "the file name";
    const sub = command
      .command(format.name)
      .description(format.description)
      .argument(argument.syntax, argument.description)
      .option("--connection <label>", `account label of the connection (default: ${defaultLabel})`)
      .addOption(
        new Option("--batch-size <n>", "records per transaction")
          .default(String(DEFAULT_BATCH_SIZE))
          .hideHelp(),
      );
    for (const flag of format.flags ?? []) sub.addOption(formatOption(flag, flag.description));
    // The options `import` itself takes for detected files are not this format's: they are listed under
    // `pdpp import --help`, not as "Global Options" here (where --time-zone would show twice, or another
    // format's flags would seem to apply).
    const inherited = Object.assign(new Help(), sub.configureHelp());
    sub.configureHelp({
      ...sub.configureHelp(),
      visibleGlobalOptions: (cmd: Command) =>
        inherited.visibleGlobalOptions(cmd).filter((option) => !command.options.includes(option)),
    });
    if (format.generic) {
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
    sub.action(async (file: string | undefined, own: ImportFlags) => {
      // Commander lets the parent `import` consume the options it shares with a format (--connection and
      // the detected formats' flags) wherever they stand; given on the command line, they apply here too.
      const flags: ImportFlags = { ...own };
      for (const [key, value] of Object.entries(command.opts())) {
        if (command.getOptionValueSource(key) === "cli") flags[key] = value as string | boolean;
      }
      const path = file ?? format.defaultPath?.();
      if (path === undefined)
        throw new PdppError("invalid_request", `pdpp import ${format.name} needs a file.`);
      await runAndReport(context, format.name, path, flags);
    });
  }
}

function formatOption(flag: FormatFlag, description: string): Option {
  const option = new Option(flag.flags, description);
  return flag.defaultValue === undefined ? option : option.default(flag.defaultValue);
}

async function runAndReport(
  context: CliContext,
  kind: string,
  file: string,
  flags: ImportFlags,
): Promise<void> {
  let result: ImportFileResult;
  try {
    result = await runImportCommand(context, kind, file, flags);
  } catch (error) {
    // A file of another format (a Codex folder given to claude-code) fails in that format's terms: name the right one.
    const other =
      error instanceof PdppError && error.code === "invalid_request" ? await otherFormat(file, kind) : null;
    if (other)
      throw new PdppError(
        "invalid_request",
        `${error instanceof Error ? error.message : error} ${lookslike(file, other)}`,
      );
    throw error;
  }
  if (result.connectionRemoved) {
    const other = await otherFormat(file, kind);
    throw new PdppError(
      "invalid_request",
      `${nothingImported(result, file)}${other ? ` ${lookslike(file, other)}` : ""}`,
    );
  }
  process.stdout.write(
    formatSummary(result, file, { inferred: flags.infer === true, savedManifest: flags.saveManifest }),
  );
}

export async function runImportCommand(
  context: CliContext,
  kind: ImportKind,
  file: string,
  flags: ImportFlags,
): Promise<ImportFileResult> {
  const format = findFormat(kind);
  const generic: GenericOptions = {};
  if (format.generic) {
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
  const batchSize = Number(flags.batchSize ?? DEFAULT_BATCH_SIZE);
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
      flags: formatFlagValues(format, flags),
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

/** The format's own flags out of commander's options (they are validated by the format's open). */
function formatFlagValues(format: ImportFormat, flags: ImportFlags): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const flag of format.flags ?? []) {
    const key = new Option(flag.flags).attributeName();
    if (flags[key] !== undefined) values[key] = flags[key];
  }
  return values;
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
    `imported ${basename(file)} into ${result.connectionLabel} (${result.connectionId}, connector ${result.connectorKey})`,
    `  read ${result.read} records in ${(result.durationMs / 1000).toFixed(1)} s, ${plural(result.batches, "batch", "batches")}`,
    `  added ${result.added}  updated ${result.updated}  unchanged ${result.unchanged}  rejected ${result.rejected}${removed(result)}`,
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
        `    ${stream}: added ${c.added}  updated ${c.updated}  unchanged ${c.unchanged}  rejected ${c.rejected}${removed(c)}`,
      );
    }
  }
  for (const note of result.notes ?? []) lines.push(`  ${note}`);
  if (options.inferred) lines.push(...describeInferred(result.manifest, options.savedManifest));
  if (result.rejected > 0) {
    lines.push("  rejected:");
    const shown = result.rejections.slice(0, 10);
    for (const r of shown) lines.push(`    ${r.position}: ${r.reason}`);
    if (result.rejected > shown.length) lines.push(`    … and ${result.rejected - shown.length} more`);
  }
  return `${lines.join("\n")}\n`;
}

function lookslike(file: string, format: string): string {
  return `${basename(file)} looks like ${format}: pdpp import ${format} ${file}`;
}

/** The one error line of an import that stored nothing (nothing was left behind either). */
export function nothingImported(result: ImportFileResult, file: string): string {
  const first = result.rejections[0];
  const why =
    result.rejected === 0
      ? `it holds no ${result.connectorKey} records`
      : `${plural(result.rejected, "item", "items")} rejected, the first at ${first?.position}: ${first?.reason}`;
  return `nothing imported from ${basename(file)}: ${why}. Is it a ${result.connectorKey} file? Nothing was stored.`;
}

/** Records an import removed (recurrences gone from a series, an earlier misreading): shown only when any. */
function removed(counts: { deleted?: number }): string {
  return counts.deleted ? `  removed ${counts.deleted}` : "";
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
