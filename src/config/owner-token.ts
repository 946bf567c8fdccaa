// The owner token of a home: created once by `pdpp init`, kept in <home>/owner-token (0600);
// only its SHA-256 hash goes into the store.
import { PdppError } from "../core/errors.js";
import { newToken, OWNER_TOKEN_PREFIX } from "../core/ids.js";
import { homePaths } from "./home.js";
import { readSecretFile, writeSecretFile } from "./secret-file.js";

/** The home's owner token, or null when `pdpp init` has not made one yet. */
export function readOwnerToken(home: string): string | null {
  const text = readSecretFile(homePaths(home).ownerToken);
  if (text === null) return null;
  const token = text.trim();
  if (!token.startsWith(OWNER_TOKEN_PREFIX)) {
    throw new PdppError(
      "invalid_request",
      `${homePaths(home).ownerToken} does not hold an owner token (pdpp_ot_…).`,
    );
  }
  return token;
}

/** The existing owner token, or a new one written to the token file; `created` says which. */
export function ensureOwnerToken(home: string): { token: string; created: boolean } {
  const existing = readOwnerToken(home);
  if (existing) return { token: existing, created: false };
  const token = newToken("owner");
  writeSecretFile(homePaths(home).ownerToken, `${token}\n`);
  return { token, created: true };
}
