// MIME decoding for the mbox fast path, written to give exactly what mailparser (libmime, libqp) gives for
// the charsets it supports; anything else answers null so the caller falls back to mailparser.

/** How a charset name decodes: as UTF-8, or as windows-1252 (libmime maps us-ascii and latin-1 there). */
type CharsetKind = "utf8" | "cp1252";

const CHARSETS = new Map<string, CharsetKind>([
  ["utf-8", "utf8"],
  ["utf8", "utf8"],
  ["us-ascii", "cp1252"],
  ["ascii", "cp1252"],
  ["iso-8859-1", "cp1252"],
  ["iso8859-1", "cp1252"],
  ["latin1", "cp1252"],
  ["latin-1", "cp1252"],
  ["windows-1252", "cp1252"],
  ["cp1252", "cp1252"],
]);

/** The charset kind of an encoded word's charset (an RFC 2231 `*lang` suffix is ignored), or null. */
function wordCharset(charset: string): CharsetKind | null {
  const star = charset.indexOf("*");
  return CHARSETS.get((star >= 0 ? charset.slice(0, star) : charset).toLowerCase().trim()) ?? null;
}

/**
 * Bytes in windows-1252 as a string, or null when a byte is in 0x80–0x9F: there windows-1252 differs
 * from Latin-1 and iconv-lite has its own answer for the undefined bytes, so mailparser decides.
 */
export function decodeCp1252(bytes: Buffer): string | null {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b >= 0x80 && b <= 0x9f) return null;
  }
  return bytes.toString("latin1");
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x41 + 10;
  if (code >= 0x61 && code <= 0x66) return code - 0x61 + 10;
  return -1;
}

/** Quoted-printable body bytes → bytes, the libqp algorithm (trailing blanks dropped, soft breaks joined). */
export function decodeQuotedPrintable(body: Buffer): Buffer {
  const input = body
    .toString("latin1")
    .replace(/(^|[^ \t])[ \t]+(?=[\n\r\u2028\u2029]|$)/g, "$1")
    .replace(/[=](?:\r?\n|$)/g, "");
  const out = Buffer.allocUnsafe(input.length);
  let at = 0;
  const len = input.length;
  for (let i = 0; i < len; i++) {
    const code = input.charCodeAt(i);
    if (code === 0x3d && i < len - 2) {
      const hi = hexValue(input.charCodeAt(i + 1));
      const lo = hexValue(input.charCodeAt(i + 2));
      if (hi >= 0 && lo >= 0) {
        out[at++] = hi * 16 + lo;
        i += 2;
        continue;
      }
    }
    out[at++] = code;
  }
  return out.subarray(0, at);
}

/** libbase64.decode for an ASCII string: padded segments are decoded one by one. */
function decodeBase64(text: string): Buffer {
  const padAt = text.indexOf("=");
  if (padAt < 0 || !/[a-zA-Z0-9+/\-_]/.test(text.slice(padAt))) return Buffer.from(text, "base64");
  const output = Buffer.alloc(Math.floor((text.length * 3) / 4));
  let length = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("=", start);
    if (end < 0) end = text.length;
    if (end > start) length += output.write(text.substring(start, end), length, "base64");
    start = end + 1;
  }
  return Buffer.from(output.subarray(0, length));
}

function getHex(c: number | undefined): string | false {
  return c !== undefined && hexValue(c) >= 0 ? String.fromCharCode(c) : false;
}

/** libmime.decodeWord for the supported charsets; null when the charset is not one of them. */
function decodeWord(charset: string, encoding: string, text: string): string | null {
  const kind = wordCharset(charset);
  if (!kind) return null;
  let decoded: Buffer;
  if (encoding.toUpperCase() === "Q") {
    const buf = Buffer.from(text.replace(/=\s+([0-9a-fA-F])/g, "=$1").replace(/[_\s]/g, " "));
    const bytes: number[] = [];
    for (let i = 0, len = buf.length; i < len; i++) {
      const c = buf[i]!;
      if (i <= len - 2 && c === 0x3d) {
        const c1 = getHex(buf[i + 1]);
        const c2 = getHex(buf[i + 2]);
        if (c1 && c2) {
          bytes.push(Number.parseInt(c1 + c2, 16));
          i += 2;
          continue;
        }
      }
      bytes.push(c);
    }
    decoded = Buffer.from(bytes);
  } else {
    decoded = decodeBase64(text);
  }
  return kind === "utf8" ? decoded.toString("utf8") : decodeCp1252(decoded);
}

const JOIN = "__\u0000JOIN\u0000__";
/** A join marker with the `?=` / `=?charset?X?` around it (libmime's third step). */
const JOINED = new RegExp(`(\\?=)?${JOIN}(=\\?([^?]+)\\?[QqBb]\\?)?`, "g");

/**
 * libmime.decodeWords step by step (adjacent words of one charset are joined before decoding, so a
 * character split across two words survives). Null when a word uses a charset we do not decode.
 */
export function decodeWords(value: string): string | null {
  if (!value.includes("=?")) return value;
  // libmime compares charset names with their `*lang` suffix when joining; leave those to it.
  if (/=\?[^?]*\*/.test(value)) return null;
  const sameCharset = (match: string, left: string, chLeft: string, chRight: string) => {
    const a = wordCharset(chLeft);
    // Within the supported names, libmime's normalized names are equal exactly when the kinds are.
    return a !== null && a === wordCharset(chRight) ? left + JOIN : match;
  };
  let unsupported = false;
  const out = value
    .replace(/(=\?([^?]+)\?[Bb]\?[^?]*\?=)\s*(?==\?([^?]+)\?[Bb]\?[^?]*\?=)/g, sameCharset)
    .replace(/(=\?([^?]+)\?[Qq]\?[^?]*\?=)\s*(?==\?([^?]+)\?[Qq]\?[^?]*\?=)/g, sameCharset)
    .replace(JOINED, "")
    .replace(/(=\?[^?]+\?[QqBb]\?[^?]*\?=)\s+(?==\?[^?]+\?[QqBb]\?[^?]*\?=)/g, "$1")
    .replace(
      /=\?([\w_\-*]+)\?([QqBb])\?([^?]*)\?=/g,
      (match, charset: string, encoding: string, text: string) => {
        const word = decodeWord(charset, encoding, text);
        if (word === null) unsupported = true;
        return word ?? match;
      },
    );
  return unsupported ? null : out;
}
