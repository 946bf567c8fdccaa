// Runs the whole suite: type-check first (a type error is a failed build), build dist/ (the suite
// spawns bin/pdpp.js, which runs the build: it must be the sources' own), then every
// test/**/*.test.ts through Node's test runner with tsx. Extra args filter files by substring.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { build } from "./build.mjs";

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith(".test.ts") ? [path] : [];
  });
}

const filters = process.argv.slice(2);
const files = findTests("test")
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}

if (!process.env.PDPP_SKIP_TYPECHECK) {
  const tsc = spawnSync("npx", ["tsc", "-p", "tsconfig.json", "--noEmit"], { stdio: "inherit" });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
}

const built = build();
if (built !== 0) process.exit(built);

const run = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", "--test-concurrency=2", "--test-reporter=spec", ...files],
  { stdio: "inherit", env: { ...process.env, PDPP_TESTING: "1" } },
);
process.exit(run.status ?? 1);
