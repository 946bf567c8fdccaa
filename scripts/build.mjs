// Builds dist/ from src/ (tsc, incremental: a build with nothing changed takes ~2 s) and stamps it,
// so bin/pdpp.js knows the build is at least as new as the sources. `npm ci` runs it as `prepare`;
// the test runner runs it before the suite, which spawns bin/pdpp.js in many places.
import { spawnSync } from "node:child_process";
import { utimesSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Exit status of the build (0 when dist/ is fresh). */
export function build() {
  const stampedAt = new Date();
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const run = spawnSync(
    process.execPath,
    [tsc, "-p", "tsconfig.build.json", "--incremental", "--tsBuildInfoFile", "dist/.tsbuildinfo"],
    { cwd: ROOT, stdio: "inherit" },
  );
  if (run.status !== 0) return run.status ?? 1;
  // The time the build started: a source saved while tsc ran makes the build stale, as it is.
  const stamp = join(ROOT, "dist", ".built");
  writeFileSync(stamp, `${stampedAt.toISOString()}\n`);
  utimesSync(stamp, stampedAt, stampedAt);
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exit(build());
