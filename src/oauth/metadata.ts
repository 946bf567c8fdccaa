// Discovery documents: RFC 8414 authorization-server metadata and RFC 9728 protected-resource
// metadata. `pdpp serve` is the authorization server of its own /mcp, so both name publicUrl.
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";

export const OAUTH_PATHS = {
  authorize: "/authorize",
  token: "/token",
  register: "/register",
  revoke: "/revoke",
  /** owner-web's consent page; a pending authorization id follows. */
  consent: "/consent",
  serverMetadata: "/.well-known/oauth-authorization-server",
} as const;

/** The one resource (RFC 8707) this server issues tokens for: its hosted MCP endpoint. */
export function mcpResource(publicUrl: string): string {
  return `${publicUrl}/mcp`;
}

/** The issuer identifier (RFC 8414 / RFC 9207 `iss`): the public URL, no trailing slash. */
export function issuer(publicUrl: string): string {
  return publicUrl;
}

export function authorizationServerMetadata(publicUrl: string): OAuthMetadata & Record<string, unknown> {
  return {
    issuer: issuer(publicUrl),
    authorization_endpoint: `${publicUrl}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${publicUrl}${OAUTH_PATHS.token}`,
    registration_endpoint: `${publicUrl}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${publicUrl}${OAUTH_PATHS.revoke}`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    code_challenge_methods_supported: ["S256"],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${publicUrl}/v1/schema`,
  };
}

export function protectedResourceMetadata(publicUrl: string): OAuthProtectedResourceMetadata {
  return {
    resource: mcpResource(publicUrl),
    resource_name: "pdpp",
    authorization_servers: [issuer(publicUrl)],
    bearer_methods_supported: ["header"],
    resource_documentation: `${publicUrl}/v1/schema`,
  };
}
