#!/usr/bin/env node
// The `pdpp` command: runs the compiled build (dist/, made by `npm run build`, which `npm ci` runs
// as `prepare`), from any directory. In a checkout whose sources changed since the last build, or
// with PDPP_DEV=1, it runs the sources through tsx instead, with this package's own tsconfig.json:
// tsx otherwise reads the tsconfig of the current directory, and the owner pages' JSX breaks.
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { IMPORT_NODE_FLAGS } from "./import-flags.js";

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
const sources = join(root, "src");
const compiled = join(root, "dist", "cli", "main.js");
/** Written by scripts/build.mjs after each build. */
const stamp = join(root, "dist", ".built");

/** Newest change under a folder (files and folders: a deleted file changes its folder). */
function newestChange(dir) {
  let newest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function runSources() {
  if (!existsSync(sources)) return false;
  if (process.env.PDPP_DEV === "1" || !existsSync(stamp)) return true;
  return newestChange(sources) > statSync(stamp).mtimeMs;
}

// `pdpp import` runs in a process started with its V8 settings (import-flags.js): they only take
// effect at start. This process waits, leaves Ctrl-C to the import (the terminal signals both), and
// exits as it does.
const args = process.argv.slice(2);
if (args.includes("import") && !IMPORT_NODE_FLAGS.every((flag) => process.execArgv.includes(flag))) {
  const { spawn } = await import("node:child_process");
  const child = spawn(
    process.execPath,
    [...process.execArgv, ...IMPORT_NODE_FLAGS, fileURLToPath(import.meta.url), ...args],
    { stdio: "inherit" },
  );
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => {
      if (signal !== "SIGINT") child.kill(signal);
    });
  }
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
} else if (runSources()) {
  // Through the environment so worker threads and `serve --workers` processes use it too.
  process.env.TSX_TSCONFIG_PATH = join(root, "tsconfig.json");
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(join(sources, "cli", "main.ts")).href);
} else if (existsSync(compiled)) {
  await import(pathToFileURL(compiled).href);
} else {
  process.stderr.write(`pdpp: no build in ${join(root, "dist")}; run \`npm run build\` there\n`);
  process.exit(1);
}
