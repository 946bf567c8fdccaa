// The shape of one import format in the registry (registry.ts): kept apart so format modules can export
// their entry without importing the registry itself.
import type { DetectProbe } from "./detect-probe.js";
import type { GenericOptions } from "./generic.js";
import type { ImportSource, RunnableItem } from "./types.js";

/** What `open` is given besides the path. */
export interface OpenOptions {
  /** --manifest / --infer / --stream / --connector of the generic formats. */
  generic?: GenericOptions;
  /** The format's own CLI flags (see ImportFormat.flags), by commander's camelCase attribute name. */
  flags?: Record<string, unknown>;
  /** mbox: parse in a worker thread, overlapping the store's writes (default true). */
  parseInWorker?: boolean;
}

/** A format's own command-line option, e.g. `--date-order <order>`. */
export interface FormatFlag {
  flags: string;
  description: string;
  defaultValue?: string;
}

export interface ImportFormat {
  name: string;
  /** One line for `pdpp import <name> --help` and the command list. */
  description: string;
  /** The command's argument (default a required `<file>`); an optional `[dir]` needs defaultPath. */
  argument?: { syntax: string; description: string };
  /** The path when the optional argument is omitted (e.g. ~/.claude/projects). */
  defaultPath?: () => string;
  /** Generic formats take --manifest/--infer and are never chosen by auto-detection. */
  generic?: boolean;
  flags?: FormatFlag[];
  /** Connection label when --connection is not given (default: the file name). */
  defaultLabel?: (path: string) => string;
  open(path: string, options: OpenOptions): Promise<ImportSource<RunnableItem>>;
  /**
   * Its records may be read and prepared in a worker thread (source-worker.ts), by a second source
   * opened there: opening reads nothing of the records, and the source hands what its prepare found
   * across (ImportSource.handoff) when it has a prepare.
   */
  readInWorker?: boolean;
  /** 0 = not this format … 1 = certain. Formats without detect are never auto-chosen. */
  detect?: (probe: DetectProbe) => number | Promise<number>;
}
