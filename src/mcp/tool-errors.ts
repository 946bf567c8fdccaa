// Tool failures as MCP results (not protocol errors): argument checks that produce typed codes,
// and the one renderer of a PdppError for both channels-aware clients (content[] only).
import type { z } from "zod";
import { clipUnits } from "../core/clip-text.js";
import { isPdppError, PdppError } from "../core/errors.js";
import { MAX_RESULT_CHARS } from "../core/render/budget.js";

/** Parse tool arguments with the tool's zod schema; failures become typed PdppErrors. */
export function parseArgs<S extends z.ZodType>(schema: S, args: unknown): z.infer<S> {
  const result = schema.safeParse(args ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const top = typeof issue.path[0] === "string" ? issue.path[0] : undefined;
  if (issue.code === "unrecognized_keys") {
    const keys = (issue as { keys?: string[] }).keys ?? [];
    return fail(
      "invalid_request",
      `unknown argument ${keys.join(", ")}; see the tool's input schema.`,
      keys[0],
    );
  }
  const where = issue.path.map(String).join(".") || "arguments";
  if (top === "filter") {
    return fail(
      "invalid_filter",
      `${where}: ${issue.message}; filter is a list like [{"field":"sent_at","op":"gte","value":"2024-01-01"}].`,
      "filter",
    );
  }
  return fail("invalid_request", `${where}: ${issue.message}.`, top);
}

function fail(code: "invalid_request" | "invalid_filter", message: string, param?: string): never {
  throw new PdppError(code, message, { param });
}

/** RS hints name HTTP routes; a model here calls tools, so `GET /v1/schema?stream=x` becomes schema(stream:"x"). */
function mcpHint<T extends Record<string, unknown>>(body: T): T {
  if (typeof body.hint !== "string") return body;
  const hint = body.hint.replace(
    /GET \/v1\/schema\?stream=([^\s&]+)/g,
    (_m, s: string) => `schema(stream:"${s}")`,
  );
  return { ...body, hint };
}

export interface ErrorResult {
  isError: true;
  content: { type: "text"; text: string }[];
}

/** One text block: `error <code>: <message>` and a compact JSON line with the typed details. */
export function toToolError(error: unknown): ErrorResult {
  const e = isPdppError(error)
    ? error
    : new PdppError("internal_error", "internal error in the MCP adapter; this is a bug.");
  const body = mcpHint(e.toBody());
  let text = `error ${e.code}: ${e.message}\n${JSON.stringify({ error: body })}`;
  text = clipUnits(text, MAX_RESULT_CHARS);
  return { isError: true, content: [{ type: "text", text }] };
}
