// Clients: Dynamic Client Registration (RFC 7591) of public clients, and resolving a client_id
// to its name and redirect URIs, whether registered here or a Client ID Metadata Document URL.
import { randomBytes } from "node:crypto";
import { OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import { cleanDisplayName } from "../core/display-name.js";
import type { OAuthClientRecord, Store } from "../store/store.js";
import { type CimdResolver, looksLikeCimdUrl, type ResolvedClient } from "./cimd.js";
import { redirectUriProblem } from "./redirect-uri.js";

export const MAX_REGISTRATION_BYTES = 16 * 1024;
const MAX_REDIRECT_URIS = 10;
const CLIENT_ID_RE = /^pdpp_cl_[A-Za-z0-9_-]{22}$/;
const GRANT_TYPES = new Set(["authorization_code", "refresh_token"]);

/** A registration refused: RFC 7591 §3.2.2 error code and a description for the client. */
export class RegistrationError extends Error {
  constructor(
    readonly code: "invalid_redirect_uri" | "invalid_client_metadata",
    message: string,
  ) {
    super(message);
  }
}

/** Validate RFC 7591 metadata into the client we store (public: token_endpoint_auth_method none). */
export function validateRegistration(body: unknown, now = new Date()): OAuthClientRecord {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new RegistrationError("invalid_client_metadata", "the registration body must be a JSON object.");
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue.path.join(".") || "body";
    const code = path.startsWith("redirect_uris") ? "invalid_redirect_uri" : "invalid_client_metadata";
    throw new RegistrationError(code, `${path}: ${issue.message}`);
  }
  const meta = parsed.data;
  if (meta.redirect_uris.length === 0 || meta.redirect_uris.length > MAX_REDIRECT_URIS)
    throw new RegistrationError(
      "invalid_redirect_uri",
      `redirect_uris needs 1 to ${MAX_REDIRECT_URIS} URIs.`,
    );
  for (const uri of meta.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem)
      throw new RegistrationError("invalid_redirect_uri", `redirect URI ${uri.slice(0, 100)} ${problem}.`);
  }
  const grantTypes = meta.grant_types ?? ["authorization_code", "refresh_token"];
  if (grantTypes.some((g) => !GRANT_TYPES.has(g)))
    throw new RegistrationError(
      "invalid_client_metadata",
      "grant_types may only hold authorization_code and refresh_token.",
    );
  if ((meta.response_types ?? ["code"]).some((r) => r !== "code"))
    throw new RegistrationError("invalid_client_metadata", "response_types may only hold code.");
  const clientId = `pdpp_cl_${randomBytes(16).toString("base64url")}`;
  const clientName = cleanDisplayName(
    meta.client_name,
    new URL(meta.redirect_uris[0]).host || "unnamed client",
  );
  // RFC 7591 §3.2.1: the server may replace requested values; every client here is public.
  const metadata: Record<string, unknown> = {
    client_id: clientId,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    client_name: clientName,
    redirect_uris: meta.redirect_uris,
    grant_types: grantTypes,
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  if (meta.scope !== undefined && meta.scope.length <= 1000) metadata.scope = meta.scope;
  return {
    client_id: clientId,
    client_name: clientName,
    redirect_uris: meta.redirect_uris,
    source: "dcr",
    metadata,
    created_at: now.toISOString(),
  };
}

/** The client behind a client_id, or null when it is unknown (or its document is unusable). */
export async function resolveClient(
  store: Store,
  cimd: CimdResolver,
  clientId: string,
): Promise<{ client: ResolvedClient } | { problem: string }> {
  if (looksLikeCimdUrl(clientId)) {
    try {
      return { client: await cimd.resolve(clientId) };
    } catch (error) {
      return { problem: error instanceof Error ? error.message : "the client metadata document is unusable" };
    }
  }
  if (!CLIENT_ID_RE.test(clientId)) return { problem: "unknown client_id" };
  const stored = await store.getOAuthClient(clientId);
  if (!stored) return { problem: "unknown client_id" };
  return {
    client: {
      client_id: stored.client_id,
      client_name: stored.client_name,
      redirect_uris: stored.redirect_uris,
    },
  };
}
