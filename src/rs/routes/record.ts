// GET /v1/streams/{stream}/records/{record_id}: one record, a source-required read (needs
// connection_id when the stream is visible on several connections).
import type { Hono } from "hono";
import { PdppError } from "../../core/errors.js";
import { requireSafeName } from "../../core/ids.js";
import { noteRead, sendJson } from "../access-log.js";
import type { RsEnv } from "../env.js";
import { Params } from "../params.js";
import { fieldsParam, previewCharsParam } from "../read-params.js";
import {
  checkConnectionParam,
  checkStreamName,
  connectionNames,
  requireOneConnection,
  streamScopes,
  toWireRecord,
} from "../render.js";

export function registerRecord(app: Hono<RsEnv>): void {
  app.get("/v1/streams/:stream/records/:record_id", async (c) => {
    const params = new Params(c.req.url);
    params.allowOnly(["fields", "connection_id", "preview_chars"]);
    const stream = checkStreamName(c.req.param("stream"));
    const recordId = requireSafeName(c.req.param("record_id"), "record_id", { param: "record_id" });
    const connectionId = checkConnectionParam(params.single("connection_id") || undefined);
    noteRead(c, { route: "GET /v1/streams/:stream/records/:record_id", stream, connectionId });
    const { scopes, catalog } = await streamScopes(c, { stream, connectionId });
    const fields = fieldsParam(params, scopes);
    const previewChars = previewCharsParam(params);
    const { scope, connectionId: target } = requireOneConnection(scopes, {
      catalog,
      grantId: c.get("auth").grantId,
      what: "read one record",
    });
    const note = c.get("access");
    if (note) note.connectionId = target;
    const record = await c
      .get("deps")
      .store.getRecord(scope, { connectionId: target, recordId }, { fields, previewChars });
    if (!record) {
      throw new PdppError(
        "record_not_found",
        "no such record is visible on this connection; find ids with search or the records list.",
        {
          param: "record_id",
        },
      );
    }
    return sendJson(c, toWireRecord(record, connectionNames(catalog)), { records: 1 });
  });
}
