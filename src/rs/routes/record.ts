// GET /v1/streams/{stream}/records/{record_id}: one record, a source-required read (needs
// connection_id when the stream is visible on several connections; the 409 is decided from
// grant metadata before any record lookup). Takes `fields` and the `preview_chars` extension
// described in ./records.ts.
import type { Hono } from "hono";
import { sendJson } from "../access-log.js";
import type { RsEnv } from "../env.js";
import { fieldsParam, previewCharsParam } from "../read-params.js";
import {
  connectionNames,
  noteConnection,
  openStreamRead,
  recordIdParam,
  recordNotFound,
  requireOneConnection,
  streamScopes,
  toWireRecord,
} from "../render.js";

export function registerRecord(app: Hono<RsEnv>): void {
  app.get("/v1/streams/:stream/records/:record_id", async (c) => {
    const { params, stream, connectionId } = openStreamRead(c, {
      route: "GET /v1/streams/:stream/records/:record_id",
      allow: ["fields", "connection_id", "preview_chars"],
    });
    const recordId = recordIdParam(c);
    const { scopes, catalog } = await streamScopes(c, { stream, connectionId });
    const fields = fieldsParam(params, scopes);
    const previewChars = previewCharsParam(params);
    const { scope, connectionId: target } = requireOneConnection(scopes, {
      catalog,
      grantId: c.get("auth").grantId,
      what: "read one record",
    });
    noteConnection(c, target);
    const record = await c
      .get("deps")
      .store.getRecord(scope, { connectionId: target, recordId }, { fields, previewChars });
    if (!record) throw recordNotFound();
    return sendJson(c, toWireRecord(record, { names: connectionNames(catalog), scopes: [scope] }), {
      records: 1,
    });
  });
}
