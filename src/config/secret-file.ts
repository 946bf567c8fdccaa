// Files that hold secrets: written owner-only (0600) from the first byte, never widened later.
import { chmodSync, closeSync, existsSync, openSync, readFileSync, writeSync } from "node:fs";
import { PdppError } from "../core/errors.js";

/**
 * Write `content` to `path` with mode 0600. The file is created with that mode (no window where
 * it is world-readable) and an existing file is tightened before it is overwritten.
 */
export function writeSecretFile(path: string, content: string): void {
  if (existsSync(path)) chmodSync(path, 0o600);
  const fd = openSync(path, "w", 0o600);
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  chmodSync(path, 0o600);
}

/** Read a secret file, or null when it does not exist. */
export function readSecretFile(path: string): string | null {
  if (!existsSync(path)) return null;
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new PdppError("invalid_request", `cannot read ${path}: ${(error as Error).message}.`);
  }
}
