// Reading Anthropic-style message content (a string, or blocks of text / thinking / tool_use / tool_result)
// as plain text, shared by the claude.ai export and Claude Code log importers.
import { tryNormalizeTime } from "../core/time.js";

export interface ContentBlock {
  type?: unknown;
  text?: unknown;
  thinking?: unknown;
  name?: unknown;
  id?: unknown;
  input?: unknown;
  content?: unknown;
  tool_use_id?: unknown;
  is_error?: unknown;
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const stringOr = <T>(value: unknown, fallback: T): string | T =>
  typeof value === "string" ? value : fallback;

/** An ISO-8601 UTC time from an export's time string (any offset, any sub-second precision), else null. */
export function isoTime(value: unknown): string | null {
  return typeof value === "string" ? tryNormalizeTime(value) : null;
}

/** The blocks of a content value: a bare string is one text block; anything else not an array is none. */
export function contentBlocks(content: unknown): ContentBlock[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter(isObject) as ContentBlock[];
}

/**
 * The marker a non-text block leaves in text, so an agent reading the turn knows something was there
 * (its bytes are never stored): `[image: image/png]`, `[document: application/pdf]`, `[image: <url>]`.
 * Anthropic blocks carry `source.media_type` (or a URL source); Codex content items an `image_url`
 * that is a data: URL or a link.
 */
export function blockMarker(block: Record<string, unknown>): string {
  const kind = typeof block.type === "string" ? block.type.replace(/^input_/, "") : "attachment";
  const source = isObject(block.source) ? block.source : {};
  let what: unknown = source.media_type ?? source.url ?? null;
  const url = typeof block.image_url === "string" ? block.image_url : null;
  if (what === null && url !== null)
    what = /^data:([^;,]+)/.exec(url)?.[1] ?? (url.startsWith("data:") ? null : url);
  return typeof what === "string" && what !== "" ? `[${kind}: ${what}]` : `[${kind}]`;
}

/** A tool result's content as text: a string, or its text blocks joined (images and others marked). */
export function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content))
    return content === undefined || content === null ? "" : JSON.stringify(content);
  return content
    .map((part) => {
      if (typeof part === "string") return part;
      if (!isObject(part)) return "";
      if (typeof part.text === "string") return part.text;
      return typeof part.type === "string" ? blockMarker(part) : "";
    })
    .filter((t) => t !== "")
    .join("\n");
}

/** A tool call's input as text: JSON on one line (a bare string stays as it is). */
export function inputText(input: unknown): string {
  if (input === undefined) return "";
  return typeof input === "string" ? input : JSON.stringify(input);
}
