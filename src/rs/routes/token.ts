// GET /v1/token: introspection — the bearer's own kind and grant summary, never the token itself.
import type { Hono } from "hono";
import type { TokenAnswer } from "../../core/wire.js";
import type { RsEnv } from "../env.js";
import { Params } from "../params.js";

export function registerToken(app: Hono<RsEnv>): void {
  app.get("/v1/token", (c) => {
    new Params(c.req.url).allowOnly([]);
    const { bearer } = c.get("auth");
    if (bearer.kind === "owner") return c.json({ kind: "owner", expires_at: null } satisfies TokenAnswer);
    const g = bearer.grant;
    const answer: TokenAnswer = {
      kind: "client",
      grant: {
        grant_id: g.grant_id,
        client_name: g.client_name,
        purpose: g.purpose,
        streams: g.streams.map((s) => ({
          stream: s.stream,
          connector_key: s.connector_key,
          connections: s.connections,
        })),
      },
      expires_at: g.expires_at,
    };
    return c.json(answer);
  });
}
