// Text parts that declare no charset: valid UTF-8 stays UTF-8, anything else is windows-1252 (what mail
// clients do with undeclared 8-bit mail; decoding it as UTF-8 turned "café" into "caf\uFFFD").
import { isUtf8 } from "node:buffer";
import { decodeQuotedPrintable } from "./mime-decode.js";

const TRANSFER_ENCODED = /content-transfer-encoding[ \t]*:[ \t]*(?:quoted-printable|base64)/i;
const HEADER_END = /\r?\n\r?\n/;
const BOUNDARY = /boundary\s*=\s*(?:"([^"\r\n]+)"|([^\s;]+))/gi;

/**
 * The message with `charset=windows-1252` declared on every text part (or charset-less single-part
 * message) whose body is 8-bit and not valid UTF-8, so mailparser decodes it as mail clients do. Parts
 * that declare a charset, and bodies that are ASCII or valid UTF-8, are left exactly as they are; a
 * message that is valid UTF-8 throughout comes back as the same Buffer.
 */
export function declareUndeclaredCharsets(raw: Buffer): Buffer {
  if (isUtf8(raw) && !TRANSFER_ENCODED.test(raw.toString("latin1"))) return raw;
  // latin1 maps bytes 1:1 to code units, so string offsets are byte offsets and nothing is lost.
  const text = raw.toString("latin1");
  const boundaries = new Set<string>();
  for (const m of text.matchAll(BOUNDARY)) boundaries.add((m[1] ?? m[2])!);
  const partStarts = [0];
  for (const boundary of boundaries) {
    const marker = `\n--${boundary}`;
    for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + 1)) {
      const lineEnd = text.indexOf("\n", at + 1);
      if (lineEnd < 0) continue;
      if (text.slice(at + 3 + boundary.length, lineEnd).trim() === "") partStarts.push(lineEnd + 1);
    }
  }
  partStarts.sort((a, b) => a - b);
  const edits: { at: number; insert: string }[] = [];
  partStarts.forEach((start, i) => {
    const headerEnd = text.slice(start).search(HEADER_END);
    if (headerEnd < 0) return;
    const headers = text.slice(start, start + headerEnd);
    const bodyStart = start + headerEnd + (text.startsWith("\r\n\r\n", start + headerEnd) ? 4 : 2);
    const bodyEnd = partStarts[i + 1] ?? text.length;
    if (isUtf8(decodedBody(headers, raw.subarray(bodyStart, bodyEnd)))) return;
    const contentType = /(^|\n)content-type[ \t]*:([^\n]*(?:\n[ \t][^\n]*)*)/i.exec(headers);
    if (!contentType) {
      // No Content-Type means text/plain: declare the charset at the top of this header block.
      edits.push({ at: start, insert: "Content-Type: text/plain; charset=windows-1252\r\n" });
      return;
    }
    const value = contentType[2]!;
    if (!/^\s*text\//i.test(value) || /charset\s*=/i.test(value)) return;
    const valueEnd = start + contentType.index + contentType[0].length;
    edits.push({ at: valueEnd - (value.endsWith("\r") ? 1 : 0), insert: "; charset=windows-1252" });
  });
  if (edits.length === 0) return raw;
  let out = "";
  let from = 0;
  for (const edit of edits.sort((a, b) => a.at - b.at)) {
    out += text.slice(from, edit.at) + edit.insert;
    from = edit.at;
  }
  return Buffer.from(out + text.slice(from), "latin1");
}

/** The body's bytes once its Content-Transfer-Encoding is undone (what the charset applies to). */
function decodedBody(headers: string, body: Buffer): Buffer {
  const encoding = /(?:^|\n)content-transfer-encoding[ \t]*:[ \t]*([\w-]+)/i
    .exec(headers)?.[1]
    ?.toLowerCase();
  if (encoding === "quoted-printable") return decodeQuotedPrintable(body);
  if (encoding === "base64") return Buffer.from(body.toString("latin1"), "base64");
  return body;
}
