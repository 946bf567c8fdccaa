// The access log: one entry per data read (route or MCP tool, grant, stream, connection, record
// count, bytes, status), decided after the response, errors included. The store batches the
// writes off the request path (see src/store/access-log-buffer.ts).
import type { Context, MiddlewareHandler } from "hono";
import { CONNECTION_ID_RE, parseStreamName } from "../core/ids.js";
import type { AccessLogEntry } from "../store/store.js";
import type { AccessNote, RsEnv } from "./env.js";
import { inProcessCall } from "./in-process.js";

const TOOL_NAME_RE = /^[a-z][a-z0-9_]{0,63}$/;

/** Mark this request as a data read; `route` is e.g. "GET /v1/search". */
export function noteRead(
  c: Context<RsEnv>,
  options: { route: string; stream?: string | null; connectionId?: string | null },
): AccessNote {
  // Only the in-process MCP adapter labels its calls (a context no HTTP client can set); a
  // client's header is never trusted, so every /v1 call from the network is logged as its route.
  const tool = inProcessCall(c)?.tool;
  const note: AccessNote = {
    route: tool && TOOL_NAME_RE.test(tool) ? `mcp:${tool}` : options.route,
    // Only well-formed names (bare or connector:stream) reach the log: hostile input (NUL, huge
    // strings) never becomes a row.
    stream: options.stream && parseStreamName(options.stream) ? options.stream : null,
    connectionId:
      options.connectionId && CONNECTION_ID_RE.test(options.connectionId) ? options.connectionId : null,
    recordCount: 0,
    bytes: 0,
  };
  c.set("access", note);
  return note;
}

const MAX_LOGGED_STREAMS = 4;

/**
 * A read over several streams (a search across the grant) logs the streams its answer came from,
 * qualified and in first-seen order: `mail:messages, chat:messages` (then `+N more`).
 */
export function noteAnswerStreams(c: Context<RsEnv>, qualified: readonly string[]): void {
  const note = c.get("access");
  if (!note || note.stream !== null) return;
  const distinct = [...new Set(qualified.filter((name) => parseStreamName(name) !== null))];
  if (distinct.length === 0) return;
  const shown = distinct.slice(0, MAX_LOGGED_STREAMS).join(", ");
  const more = distinct.length - MAX_LOGGED_STREAMS;
  note.stream = more > 0 ? `${shown} +${more} more` : shown;
}

/** Send a JSON body and record its size and record count in the access note. */
export function sendJson(
  c: Context<RsEnv>,
  body: unknown,
  options: { records?: number; status?: number } = {},
): Response {
  const text = JSON.stringify(body);
  // The in-process adapter takes the object itself (same answer, no JSON parse on its side), so its
  // Response body stays the lazily encoded string. Over HTTP the text is encoded to UTF-8 once: its
  // length is the logged size and the server writes these very bytes (a string body would be
  // measured and encoded again on the way out).
  const call = inProcessCall(c);
  if (call) call.answer = { body };
  const payload = call ? text : Buffer.from(text, "utf8");
  const note = c.get("access");
  if (note) {
    note.bytes = typeof payload === "string" ? Buffer.byteLength(payload) : payload.length;
    note.recordCount = options.records ?? 0;
  }
  return c.body(payload, (options.status ?? 200) as 200, {
    "content-type": "application/json; charset=utf-8",
  });
}

export const accessLogMiddleware: MiddlewareHandler<RsEnv> = async (c, next) => {
  await next();
  const note = c.get("access");
  const auth = c.get("auth");
  const call = inProcessCall(c);
  if (!note || !auth || call?.logged === false) return;
  const ok = c.res.status < 400;
  const entry: AccessLogEntry = {
    at: new Date().toISOString(),
    grant_id: auth.grantId,
    client_name: auth.clientName,
    route: note.route,
    stream: note.stream,
    connection_id: note.connectionId,
    record_count: ok ? note.recordCount : 0,
    bytes: ok ? note.bytes : 0,
    status: c.res.status,
  };
  const { store } = c.get("deps");
  if (call?.slot) call.slot.hold(() => store.appendAccessLog(entry));
  else await store.appendAccessLog(entry);
};
