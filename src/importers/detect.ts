// `pdpp import FILE` without a format: ask every registered format how sure it is about the file's content
// and pick the one clear winner, or refuse with a message naming the candidates.
import { basename } from "node:path";
import { PdppError } from "../core/errors.js";
import { type DetectProbe, openProbe } from "./detect-probe.js";
import type { ImportFormat } from "./import-format.js";
import { IMPORT_FORMATS } from "./registry.js";

/** A format is chosen only at or above this confidence … */
export const DETECT_THRESHOLD = 0.5;
/** … and only when no other format comes this close to it. */
const DETECT_MARGIN = 0.2;

/** Control characters other than tab/newline/CR/form feed mean binary content. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what marks binary
const BINARY = /[\u0000-\u0008\u000e-\u001f]/;

export interface Detection {
  format: ImportFormat;
  confidence: number;
}

export async function detectFormat(
  path: string,
  formats: readonly ImportFormat[] = IMPORT_FORMATS,
): Promise<Detection> {
  const probe = await openProbe(path);
  const scored: Detection[] = [];
  for (const format of formats) {
    if (!format.detect || format.generic) continue;
    const confidence = await format.detect(probe);
    if (confidence > 0) scored.push({ format, confidence });
  }
  scored.sort((a, b) => b.confidence - a.confidence);
  const [best, second] = scored;
  const name = basename(path);
  const named = formats.filter((f) => !f.generic).map((f) => f.name);
  if (!best || best.confidence < DETECT_THRESHOLD) {
    const candidates = scored.map((s) => s.format.name);
    const what = describeUnknown(probe);
    throw new PdppError(
      "invalid_request",
      candidates.length > 0
        ? `cannot tell the format of ${name} for sure (${what}; it might be ${candidates.join(" or ")}): pass it, e.g. pdpp import ${candidates[0]} ${path}.`
        : `cannot tell the format of ${name} (${what}): pass the format, pdpp import <format> ${path}, one of ${named.join(", ")}${genericHint(probe)}.`,
    );
  }
  if (second && best.confidence - second.confidence < DETECT_MARGIN) {
    const tied = scored
      .filter((s) => best.confidence - s.confidence < DETECT_MARGIN)
      .map((s) => s.format.name);
    throw new PdppError(
      "invalid_request",
      `${name} could be ${tied.join(" or ")}: pass the format, e.g. pdpp import ${tied[0]} ${path}.`,
    );
  }
  return best;
}

function describeUnknown(probe: DetectProbe): string {
  if (probe.kind === "directory") return "a folder no importer recognizes";
  if (probe.kind === "zip") return "a zip no importer recognizes";
  const text = probe.headText.trimStart();
  if (text === "") return "an empty file";
  if (looksLikeJson(text)) return "JSON no importer recognizes";
  if (BINARY.test(text.slice(0, 4096))) return "binary content";
  return "plain text no importer recognizes";
}

/**
 * JSON's first value, not merely a first `[`: a chat line `[12.3.2022 klo 14.08]` or `[31/12/2023, …]`
 * starts with a bracket too, but no JSON array holds `12.3.` or `31/`.
 */
function looksLikeJson(text: string): boolean {
  return /^(?:\[\s*(?:[[{"\]]|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\s*[,\]]|true|false|null)|\{\s*["}])/.test(
    text,
  );
}

/**
 * The format `path` looks like, when detection names one other than `kind` (a Codex folder given to
 * claude-code): the hint an import that found nothing of its own format adds. Null when unsure.
 */
export async function otherFormat(path: string, kind: string): Promise<string | null> {
  try {
    const { format } = await detectFormat(path);
    return format.name === kind ? null : format.name;
  } catch {
    return null;
  }
}

/** JSON records or CSV need a manifest: say so instead of guessing one. */
function genericHint(probe: DetectProbe): string {
  if (probe.kind !== "file") return "";
  const text = probe.headText.trimStart();
  if (!looksLikeJson(text)) return "";
  if (text.startsWith("[")) return `; for a JSON array of records use pdpp import json ${probe.path} --infer`;
  if (text.startsWith("{")) return `; for JSON lines of records use pdpp import jsonl ${probe.path} --infer`;
  return "";
}
