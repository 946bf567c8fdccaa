#!/usr/bin/env node
// The `pdpp` command: in a checkout it runs the TypeScript sources through tsx (never a stale
// build); an installed package (no src/) runs the compiled dist/.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// Checked before anything is imported: the SQLite driver's prebuilt binary needs Node >= 22 and
// crashes older runtimes with a segfault instead of an error.
const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
  process.stderr.write(
    `pdpp: Node.js ${process.versions.node} is not supported; install Node.js 22 or newer (24 LTS recommended)\n`,
  );
  process.exit(1);
}

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "src", "cli", "main.ts");
if (existsSync(source)) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(source).href);
} else {
  await import(pathToFileURL(join(root, "dist", "cli", "main.js")).href);
}
