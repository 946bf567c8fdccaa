// The owner's passphrase as a memory-hard hash: scrypt (node:crypto) with a per-hash salt, written
// as a PHC-style string `$scrypt$ln=17,r=8,p=1$<salt>$<hash>` so parameters can grow later.
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/** OWASP's scrypt baseline: N = 2^17, r = 8, p = 1 (128 MiB per hash, about a second here). */
export const DEFAULT_SCRYPT = { logN: 17, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
export const MIN_PASSPHRASE_CHARS = 12;
export const MAX_PASSPHRASE_CHARS = 1024;

interface ScryptParams {
  logN: number;
  r: number;
  p: number;
}

function derive(passphrase: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.logN;
  return new Promise((resolve, reject) => {
    // maxmem must exceed 128·N·r (plus a little), or node refuses the strong parameters.
    scrypt(
      passphrase.normalize("NFC"),
      salt,
      KEY_BYTES,
      { N, r: params.r, p: params.p, maxmem: 256 * N * params.r },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/** Why a new passphrase is refused, or null when it is acceptable. */
export function passphraseProblem(passphrase: string): string | null {
  if ([...passphrase].length < MIN_PASSPHRASE_CHARS)
    return `the passphrase must have at least ${MIN_PASSPHRASE_CHARS} characters.`;
  if (passphrase.length > MAX_PASSPHRASE_CHARS)
    return `the passphrase must have at most ${MAX_PASSPHRASE_CHARS} characters.`;
  return null;
}

export async function hashPassphrase(
  passphrase: string,
  params: ScryptParams = DEFAULT_SCRYPT,
): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(passphrase, salt, params);
  return `$scrypt$ln=${params.logN},r=${params.r},p=${params.p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

const PHC_RE =
  /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]{16,64})\$([A-Za-z0-9_-]{40,64})$/;

/**
 * True when `passphrase` matches `stored`. With no stored hash (no passphrase set yet) it still
 * derives a key at the default cost and compares it, so "not set" and "wrong" cost the same
 * time and answer the same: the sign-in form is never an oracle for the store's state.
 */
export async function verifyPassphrase(passphrase: string, stored: string | null): Promise<boolean> {
  const m = stored === null ? null : PHC_RE.exec(stored);
  if (!m) {
    const key = await derive(passphrase, randomBytes(SALT_BYTES), DEFAULT_SCRYPT);
    timingSafeEqual(key, randomBytes(KEY_BYTES));
    return false;
  }
  const params = { logN: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  const expected = Buffer.from(m[5], "base64url");
  const key = await derive(passphrase, Buffer.from(m[4], "base64url"), params);
  return key.length === expected.length && timingSafeEqual(key, expected);
}
