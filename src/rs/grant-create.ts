// Creating a grant: the body shape of POST /v1/owner/grants, its checks against the store's
// manifests and connections, and the stored grant with its hashed client token. Shared by the
// owner route and the OAuth consent approval (src/oauth/pending.ts), so both validate alike.
import { z } from "zod";
import { invalidRequest, PdppError } from "../core/errors.js";
import type { GrantStream } from "../core/grant.js";
import { connectionNotFound, streamNotFound } from "../core/grant-scope.js";
import { hashToken, isFieldPath, newGrantId, newToken } from "../core/ids.js";
import { fieldSchemaAt } from "../core/manifest.js";
import type { Store, StoredGrant } from "../store/store.js";
import { parseBody } from "./routes/owner-common.js";

const isoTime = z.string().refine((v) => !Number.isNaN(Date.parse(v)), "must be an ISO-8601 date-time");

/** What the owner chooses: streams (connections, fields, time range), purpose and expiry. */
export const grantChoiceBody = z.strictObject({
  purpose: z.string().max(2000).default(""),
  expires_at: isoTime.nullable().default(null),
  streams: z
    .array(
      z.strictObject({
        stream: z.string(),
        connector_key: z.string(),
        connections: z.union([z.literal("all"), z.array(z.string()).min(1).max(1000)]).default("all"),
        fields: z.union([z.literal("all"), z.array(z.string()).min(1).max(1000)]).default("all"),
        time_range: z
          .strictObject({ since: isoTime.nullable().optional(), until: isoTime.nullable().optional() })
          .nullable()
          .optional(),
      }),
    )
    .min(1)
    .max(500),
});

/** The body of POST /v1/owner/grants: the choice plus the client's name. */
export const grantBody = grantChoiceBody.extend({ client_name: z.string().min(1).max(100) });

/** The owner's choice as sent (defaults optional), e.g. from the consent page. */
export type GrantChoiceInput = z.input<typeof grantChoiceBody>;

const iso = (v: string | null | undefined) => (v ? new Date(Date.parse(v)).toISOString() : null);

/** Check every grant stream against the store's manifests and connections. */
async function checkGrantStreams(store: Store, streams: GrantStream[]): Promise<GrantStream[]> {
  const seen = new Set<string>();
  const connections = await store.listConnections();
  const out: GrantStream[] = [];
  for (const [i, entry] of streams.entries()) {
    const key = `${entry.connector_key}\u0000${entry.stream}`;
    if (seen.has(key))
      throw invalidRequest(
        `streams.${i}: ${entry.stream} of ${entry.connector_key} is listed twice.`,
        `streams.${i}`,
      );
    seen.add(key);
    const manifest = await store.getManifest(entry.connector_key);
    if (!manifest)
      throw new PdppError(
        "connector_not_found",
        `streams.${i}: no connector ${entry.connector_key.slice(0, 64)}.`,
        { param: `streams.${i}.connector_key` },
      );
    const def = manifest.streams.find((s) => s.name === entry.stream);
    if (!def) throw streamNotFound();
    if (entry.connections !== "all") {
      for (const id of entry.connections) {
        if (!connections.some((c) => c.connection_id === id && c.connector_key === entry.connector_key))
          throw connectionNotFound();
      }
    }
    if (entry.fields !== "all") {
      for (const f of entry.fields) {
        if (!isFieldPath(f) || !fieldSchemaAt(def, f)) {
          throw invalidRequest(
            `streams.${i}.fields: ${entry.stream} has no field ${f.slice(0, 64)}.`,
            `streams.${i}.fields`,
          );
        }
      }
    }
    const since = iso(entry.time_range?.since);
    const until = iso(entry.time_range?.until);
    if (since && until && since >= until)
      throw invalidRequest(`streams.${i}.time_range: since must be before until.`, `streams.${i}.time_range`);
    out.push({
      stream: entry.stream,
      connector_key: entry.connector_key,
      connections: entry.connections === "all" ? "all" : [...new Set(entry.connections)].sort(),
      fields: entry.fields === "all" ? "all" : [...new Set(entry.fields)],
      time_range: since || until ? { since, until } : null,
    });
  }
  return out;
}

/**
 * Validate an owner's grant choice (400/404 typed errors, nothing written) and return the grant
 * ready to store, with its client token (the hash is in the grant; the token is shown once).
 */
export async function prepareGrant(
  store: Store,
  choice: unknown,
  options: { clientName: string },
): Promise<{ grant: StoredGrant; token: string }> {
  const body = parseBody(grantChoiceBody, choice);
  const streams = await checkGrantStreams(store, body.streams as GrantStream[]);
  const token = newToken("client");
  const grant: StoredGrant = {
    grant_id: newGrantId(),
    client_name: options.clientName,
    purpose: body.purpose,
    created_at: new Date().toISOString(),
    expires_at: iso(body.expires_at),
    revoked_at: null,
    streams,
    token_hash: hashToken(token),
  };
  return { grant, token };
}
