// Reads a request body with a hard byte limit (ingest 64 MiB, everything else 8 MiB), so an
// oversized upload fails with 413 payload_too_large before it fills memory.
import { invalidRequest, PdppError } from "../core/errors.js";

export const MAX_INGEST_BODY_BYTES = 64 * 1024 * 1024;
export const MAX_JSON_BODY_BYTES = 8 * 1024 * 1024;

function tooLarge(limit: number): PdppError {
  const mib = limit / (1024 * 1024);
  return new PdppError(
    "payload_too_large",
    `the request body is limited to ${mib} MiB; split it into smaller requests.`,
  );
}

export async function readBodyText(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (Number.isFinite(declared) && request.headers.get("transfer-encoding") === null) {
    // HTTP framing bounds a body of declared length: read it whole (@hono/node-server reads it
    // straight off the socket, without a web stream). Checked again in case no framing did.
    const bytes = Buffer.from(await request.arrayBuffer());
    if (bytes.length > limit) throw tooLarge(limit);
    return bytes.toString("utf8");
  }
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export async function readJsonBody(request: Request): Promise<unknown> {
  const text = await readBodyText(request, MAX_JSON_BODY_BYTES);
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest("the request body must be JSON.", "body");
  }
}
