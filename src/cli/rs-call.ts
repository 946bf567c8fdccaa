// Owner calls from CLI commands to the in-process RS: JSON in, JSON out, RS errors as PdppError.
import { ERROR_CODES, type ErrorCode, PdppError } from "../core/errors.js";
import type { OpenedApp } from "./context.js";

export async function ownerCall<T>(
  app: OpenedApp,
  request: { method: "GET" | "POST" | "DELETE"; path: string; body?: unknown },
): Promise<T> {
  const headers: Record<string, string> = { authorization: `Bearer ${app.ownerToken}` };
  let body: string | undefined;
  if (request.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(request.body);
  }
  const response = await app.fetch(
    new Request(`${app.baseUrl}${request.path}`, { method: request.method, headers, body }),
  );
  const text = await response.text();
  let parsed: unknown = null;
  if (text.length > 0) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
  }
  if (!response.ok) throw errorFromEnvelope(response.status, parsed);
  return parsed as T;
}

function errorFromEnvelope(status: number, body: unknown): PdppError {
  const error = (body as { error?: { code?: string; message?: string; param?: string } } | null)?.error;
  const code =
    error?.code && Object.hasOwn(ERROR_CODES, error.code) ? (error.code as ErrorCode) : "internal_error";
  const message = error?.message ?? `the server answered HTTP ${status}.`;
  return new PdppError(code, message, { param: error?.param });
}

/** The rows of a list answer: `{object:"list", data:[…]}`, or a bare array. */
export function listData<T>(answer: unknown): T[] {
  if (Array.isArray(answer)) return answer as T[];
  const data = (answer as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? (data as T[]) : [];
}
