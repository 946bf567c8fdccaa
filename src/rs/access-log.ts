// The access log: one entry per data read (route or MCP tool, grant, stream, connection, record
// count, bytes, status), written after the response is decided, errors included.
import type { Context, MiddlewareHandler } from "hono";
import { CONNECTION_ID_RE, STREAM_NAME_RE } from "../core/ids.js";
import type { AccessNote, RsEnv } from "./env.js";

const TOOL_NAME_RE = /^[a-z][a-z0-9_]{0,63}$/;

/** Mark this request as a data read; `route` is e.g. "GET /v1/search". */
export function noteRead(
  c: Context<RsEnv>,
  options: { route: string; stream?: string | null; connectionId?: string | null },
): AccessNote {
  const tool = c.req.header("x-pdpp-tool");
  const note: AccessNote = {
    // Requests from the MCP adapter are logged under the tool the agent called.
    route: tool && TOOL_NAME_RE.test(tool) ? `mcp:${tool}` : options.route,
    // Only well-formed names reach the log: hostile input (NUL, huge strings) never becomes a row.
    stream: options.stream && STREAM_NAME_RE.test(options.stream) ? options.stream : null,
    connectionId:
      options.connectionId && CONNECTION_ID_RE.test(options.connectionId) ? options.connectionId : null,
    recordCount: 0,
    bytes: 0,
  };
  c.set("access", note);
  return note;
}

/** Send a JSON body and record its size and record count in the access note. */
export function sendJson(
  c: Context<RsEnv>,
  body: unknown,
  options: { records?: number; status?: number } = {},
): Response {
  const text = JSON.stringify(body);
  const note = c.get("access");
  if (note) {
    note.bytes = Buffer.byteLength(text);
    note.recordCount = options.records ?? 0;
  }
  return c.body(text, (options.status ?? 200) as 200, { "content-type": "application/json; charset=utf-8" });
}

export const accessLogMiddleware: MiddlewareHandler<RsEnv> = async (c, next) => {
  await next();
  const note = c.get("access");
  const auth = c.get("auth");
  if (!note || !auth) return;
  const ok = c.res.status < 400;
  await c.get("deps").store.appendAccessLog({
    at: new Date().toISOString(),
    grant_id: auth.grantId,
    client_name: auth.clientName,
    route: note.route,
    stream: note.stream,
    connection_id: note.connectionId,
    record_count: ok ? note.recordCount : 0,
    bytes: ok ? note.bytes : 0,
    status: c.res.status,
  });
};
