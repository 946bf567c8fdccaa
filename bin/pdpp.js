#!/usr/bin/env node
// The `pdpp` command: in a checkout it runs the TypeScript sources through tsx (never a stale
// build); an installed package (no src/) runs the compiled dist/.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "src", "cli", "main.ts");
if (existsSync(source)) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(source).href);
} else {
  await import(pathToFileURL(join(root, "dist", "cli", "main.js")).href);
}
