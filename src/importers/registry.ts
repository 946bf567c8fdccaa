// The one list of import formats: each names itself, describes itself, opens a file as an ImportSource and
// may say how sure it is that a probed file is its format. `pdpp import <format>`, auto-detection and
// importFile all read this list, so adding a format is one entry here (its definition lives in its module).
import { basename } from "node:path";
import { PdppError } from "../core/errors.js";
import { openChatgptSource } from "./chatgpt.js";
import { CLAUDE_FORMAT } from "./claude.js";
import { CLAUDE_CODE_FORMAT } from "./claude-code.js";
import { CODEX_FORMAT } from "./codex.js";
import { openCsvSource } from "./csv.js";
import { ICAL_FORMAT } from "./ical.js";
import type { ImportFormat } from "./import-format.js";
import { openJsonSource } from "./json.js";
import { openJsonlSource } from "./jsonl.js";
import { openMboxSource } from "./mbox.js";
import { openMboxWorkerSource } from "./mbox-worker-source.js";
import { TAKEOUT_FORMAT } from "./takeout.js";
import { WHATSAPP_FORMAT } from "./whatsapp.js";

export type { FormatFlag, ImportFormat, OpenOptions } from "./import-format.js";

const MBOX: ImportFormat = {
  name: "mbox",
  description: "import an mbox file (e.g. a Google Takeout mail export) into stream `messages`",
  open: async (path, options) =>
    options.parseInWorker === false ? openMboxSource(path) : openMboxWorkerSource(path),
  // An mbox starts with a `From ` separator line (RFC 4155) followed by a header line.
  detect: (probe) =>
    probe.kind === "file" && /^From [^\r\n]*\r?\n[!-9;-~]+:/.test(probe.headText.slice(0, 4096)) ? 0.9 : 0,
};

const CHATGPT: ImportFormat = {
  name: "chatgpt",
  description:
    "import a ChatGPT export (conversations.json or the export zip) into `conversations` and `messages`",
  // Every export has a new file name; the same label maps a newer export onto the same connection.
  defaultLabel: () => "ChatGPT",
  open: (path) => openChatgptSource(path),
  readInWorker: true,
  detect: async (probe) => {
    const text = await probe.head("conversations.json");
    // A ChatGPT conversation carries a `mapping` of message nodes (claude.ai's has `chat_messages`).
    return text !== null && /^\s*\[\s*\{/.test(text) && /"mapping"\s*:/.test(text) ? 0.9 : 0;
  },
};

const JSONL: ImportFormat = {
  name: "jsonl",
  description: "import a JSONL file (one record object per line) with --manifest <file> or --infer",
  generic: true,
  open: (path, options) => openJsonlSource(path, options.generic ?? {}),
};

const JSON_ARRAY: ImportFormat = {
  name: "json",
  description: "import a JSON file (a top-level array of record objects) with --manifest <file> or --infer",
  generic: true,
  open: (path, options) => openJsonSource(path, options.generic ?? {}),
};

const CSV: ImportFormat = {
  name: "csv",
  description: "import a CSV file (a header row, then one record per row) with --manifest <file> or --infer",
  generic: true,
  open: (path, options) => openCsvSource(path, options.generic ?? {}),
};

/** Every format, in `pdpp import --help` order. */
export const IMPORT_FORMATS: readonly ImportFormat[] = [
  MBOX,
  CHATGPT,
  CLAUDE_FORMAT,
  CLAUDE_CODE_FORMAT,
  CODEX_FORMAT,
  JSONL,
  JSON_ARRAY,
  CSV,
  WHATSAPP_FORMAT,
  ICAL_FORMAT,
  TAKEOUT_FORMAT,
];

export function findFormat(name: string): ImportFormat {
  const format = IMPORT_FORMATS.find((f) => f.name === name);
  if (!format) {
    throw new PdppError(
      "invalid_request",
      `unknown import format ${name}: use one of ${IMPORT_FORMATS.map((f) => f.name).join(", ")}.`,
    );
  }
  return format;
}

/** The label when --connection is not given. */
export function defaultConnectionLabel(name: string, path: string): string {
  return findFormat(name).defaultLabel?.(path) ?? basename(path);
}
