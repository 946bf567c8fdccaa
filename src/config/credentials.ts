// The client-credentials file written by `pdpp grant create --save` and read by `pdpp mcp`.
import { PdppError } from "../core/errors.js";
import { CLIENT_TOKEN_PREFIX } from "../core/ids.js";
import { readSecretFile, writeSecretFile } from "./secret-file.js";

export interface ClientCredentials {
  /** Where the RS answers (for `pdpp mcp` over HTTP); absent when the store is opened in-process. */
  provider_url?: string;
  /** A client token (pdpp_ct_…); never an owner token. */
  token: string;
  /** A pdpp home to open in-process (`pdpp mcp --store`). */
  store?: string;
}

export function writeCredentials(path: string, credentials: ClientCredentials): void {
  writeSecretFile(path, `${JSON.stringify(credentials, null, 2)}\n`);
}

/** Read and check a credentials file; a missing file or a non-client token is a clear error. */
export function readCredentials(path: string): ClientCredentials {
  const text = readSecretFile(path);
  if (text === null) throw new PdppError("invalid_request", `credentials file ${path} does not exist.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new PdppError("invalid_request", `credentials file ${path} is not valid JSON.`);
  }
  const value = parsed as Partial<ClientCredentials> | null;
  if (!value || typeof value.token !== "string" || !value.token.startsWith(CLIENT_TOKEN_PREFIX)) {
    throw new PdppError("invalid_request", `credentials file ${path} must hold a client token (pdpp_ct_…).`);
  }
  const out: ClientCredentials = { token: value.token };
  if (typeof value.provider_url === "string") out.provider_url = value.provider_url;
  if (typeof value.store === "string") out.store = value.store;
  return out;
}
