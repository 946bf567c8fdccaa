// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned) runs every server
// scenario it has against a real `pdpp serve`, at protocol 2025-11-25 and at 2026-07-28. Every check
// passes except those listed below: scenarios that need what pdpp does not offer (the suite's
// fixture tools and test:// resources, prompts, completion, logging, subscriptions, asking the
// client for input). Each listed exclusion names the answer pdpp must give there (the correct
// error), matched against what the suite recorded; an exclusion that no longer occurs fails too,
// so the list stays true. The suite cannot send credentials, so a pass-through proxy on loopback
// adds the client token; nothing leaves the machine.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { BIN, cliEnv, REPO_ROOT, runPdpp, tempDir, waitForOutput } from "../cli/run-cli.js";

const SUITE = join(REPO_ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
type Revision = "2025-11-25" | "2026-07-28";

interface Exclusion {
  /** `scenario` (every check of it) or `scenario:check-id`. */
  checks: string[];
  revisions: Revision[];
  reason: string;
  /** pdpp's answer there, as the suite recorded it. */
  answer: RegExp;
}

const BOTH: Revision[] = ["2025-11-25", "2026-07-28"];
const FIXTURE_TOOL = /unknown tool test_|Tool 'json_schema_2020_12_tool' not found/;
const METHOD_NOT_FOUND = /Method not found/;

const NOT_APPLICABLE: Exclusion[] = [
  {
    checks: [
      "tools-call-simple-text",
      "tools-call-image",
      "tools-call-audio",
      "tools-call-embedded-resource",
      "tools-call-mixed-content",
      "tools-call-error",
      "tools-call-with-progress",
      "json-schema-2020-12:json-schema-2020-12-tool-found",
    ],
    revisions: BOTH,
    reason: "calls the suite's fixture tools (test_*); pdpp has exactly its six read tools",
    answer: FIXTURE_TOOL,
  },
  {
    checks: [
      "tools-call-sampling",
      "tools-call-elicitation",
      "elicitation-sep1034-defaults",
      "elicitation-sep1330-enums",
    ],
    revisions: ["2025-11-25"],
    reason: "fixture tools that ask the client for input; pdpp's tools never do",
    answer: FIXTURE_TOOL,
  },
  {
    checks: ["logging-set-level", "tools-call-with-logging"],
    revisions: ["2025-11-25"],
    reason: "no logging capability: diagnostics go to stderr and the server log",
    answer: METHOD_NOT_FOUND,
  },
  {
    checks: ["completion-complete"],
    revisions: BOTH,
    reason: "no completion capability: pdpp offers no prompts or argument completion",
    answer: METHOD_NOT_FOUND,
  },
  {
    checks: [
      "prompts-list",
      "prompts-get-simple",
      "prompts-get-with-args",
      "prompts-get-embedded-resource",
      "prompts-get-with-image",
    ],
    revisions: BOTH,
    reason: "no prompts capability",
    answer: METHOD_NOT_FOUND,
  },
  {
    checks: ["caching:sep-2549-prompts-list-caching-hints"],
    revisions: ["2026-07-28"],
    reason: "no prompts capability (the tools/list and server/discover hints pass)",
    answer: METHOD_NOT_FOUND,
  },
  {
    checks: ["resources-subscribe", "resources-unsubscribe"],
    revisions: ["2025-11-25"],
    reason: "no resource subscriptions (nor listChanged): resources are reads of record handles",
    answer: METHOD_NOT_FOUND,
  },
  {
    checks: ["resources-read-text", "resources-read-binary", "resources-templates-read"],
    revisions: BOTH,
    reason: "reads the suite's test:// resources; pdpp serves pdpp://record and pdpp://field-window handles",
    answer: /invalid_id: resource handle has an unknown scheme/,
  },
  {
    checks: ["caching:sep-2549-resources-read-caching-hints"],
    revisions: ["2026-07-28"],
    reason:
      "resources/list is empty (records are reached through the templates); test/mcp/modern-http.test.ts asserts the resources/read hint",
    answer: /returned no resources/,
  },
  {
    checks: [
      "server-sse-polling:server-sse-polling-session",
      "server-sse-multiple-streams:server-sse-multiple-streams-session",
    ],
    revisions: ["2025-11-25"],
    reason: "hosted /mcp is stateless (spec 30-mcp.md): no session id, no GET stream",
    answer: /did not provide session ID/,
  },
  {
    checks: [
      "server-stateless:sep-2575-server-rejects-undeclared-capability",
      "server-stateless:sep-2575-missing-capability-http-400",
      "server-stateless:sep-2575-http-server-no-independent-requests-on-stream",
      "server-stateless:sep-2575-server-no-log-without-loglevel",
    ],
    revisions: ["2026-07-28"],
    reason:
      "needs the suite's diagnostic tools (test_missing_capability, test_streaming_elicitation, test_logging_tool)",
    answer: /does not list the diagnostic tool/,
  },
  {
    checks: [
      "server-stateless:sep-2575-server-sends-prompts-list-changed-on-subscription",
      "server-stateless:sep-2575-server-sends-tools-list-changed-on-subscription",
    ],
    revisions: ["2026-07-28"],
    reason: "no listChanged: the tool list and prompts never change while pdpp runs",
    answer: /did not declare (prompts|tools)\.listChanged/,
  },
  {
    checks: ["http-custom-header-server-validation"],
    revisions: ["2026-07-28"],
    reason: "no tool argument is mirrored into an Mcp-Param-* header (x-mcp-header)",
    answer: /no tool with x-mcp-header/,
  },
  {
    checks: [
      "input-required-result-basic-elicitation",
      "input-required-result-basic-sampling",
      "input-required-result-basic-list-roots",
      "input-required-result-request-state",
      "input-required-result-multiple-input-requests",
      "input-required-result-capability-check",
      "input-required-result-result-type",
      "input-required-result-ignore-extra-params",
      "input-required-result-multi-round",
      "input-required-result-tampered-state",
      "input-required-result-non-tool-request",
      "input-required-result-missing-input-response",
    ],
    revisions: ["2026-07-28"],
    reason:
      "pdpp never asks the client for input (no elicitation, sampling or roots): every read completes in one round",
    answer:
      /unknown tool test_input_required|Expected InputRequiredResult|could not get initial InputRequiredResult|Method not found|JSON-RPC error instead of re-requesting/,
  },
];

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
  details?: unknown;
}

/** Every check the suite recorded, by scenario (results/server-<scenario>-<timestamp>/checks.json). */
function readChecks(dir: string): Map<string, Check[]> {
  const byScenario = new Map<string, Check[]>();
  for (const entry of readdirSync(dir)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry)?.[1];
    if (!scenario) continue;
    byScenario.set(scenario, JSON.parse(readFileSync(join(dir, entry, "checks.json"), "utf8")) as Check[]);
  }
  return byScenario;
}

function exclusionFor(revision: Revision, scenario: string, check: string): [string, Exclusion] | undefined {
  for (const key of [`${scenario}:${check}`, scenario]) {
    const found = NOT_APPLICABLE.find((e) => e.revisions.includes(revision) && e.checks.includes(key));
    if (found) return [key, found];
  }
  return undefined;
}

function run(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c: Buffer) => {
      output += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      output += c.toString("utf8");
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, output }));
  });
}

/** Loopback pass-through to `target` that adds the bearer (Host, Origin and bodies untouched). */
function authProxy(target: URL, token: string): Promise<Server> {
  const proxy = createServer((req, res) => {
    const upstream = request(
      {
        hostname: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.once("error", () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) => proxy.listen(0, "127.0.0.1", () => resolve(proxy)));
}

describe("MCP conformance suite against pdpp serve", () => {
  const tmp = tempDir("pdpp-conformance-");
  const home = join(tmp.dir, "home");
  let serve: ChildProcess;
  let proxy: Server;
  let mcpUrl: string;
  before(async () => {
    assert.equal((await runPdpp(["init"], { home })).code, 0);
    const notes = join(tmp.dir, "notes.jsonl");
    writeFileSync(notes, '{"id":"n1","at":"2024-05-01T10:00:00Z","body":"buy saffron for the paella"}\n');
    const imported = await runPdpp(
      ["import", "jsonl", notes, "--infer", "--connector", "notes", "--stream", "notes"],
      { home },
    );
    assert.equal(imported.code, 0, imported.stderr);
    const granted = await runPdpp(["grant", "create", "--client", "conformance", "--stream", "notes:notes"], {
      home,
    });
    assert.equal(granted.code, 0, granted.stderr);
    const token = /(pdpp_ct_\S+)/.exec(granted.stdout)?.[1] as string;
    serve = spawn(process.execPath, [BIN, "serve", "--port", "0"], {
      cwd: REPO_ROOT,
      env: cliEnv(home),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const [, url] = await waitForOutput(serve, /^url: +(http:\/\/127\.0\.0\.1:\d+)\n/m);
    proxy = await authProxy(new URL(url), token);
    mcpUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
  });
  after(async () => {
    await new Promise<void>((resolve) => proxy?.close(() => resolve()));
    if (serve && serve.exitCode === null) {
      const exited = new Promise((resolve) => serve.once("exit", resolve));
      serve.kill("SIGTERM");
      await exited;
    }
    tmp.cleanup();
  });

  for (const revision of ["2025-11-25", "2026-07-28"] as const) {
    test(`every applicable scenario passes at ${revision}; the others get the right error`, async (t) => {
      const out = join(tmp.dir, `results-${revision}`);
      mkdirSync(out);
      const args = [SUITE, "server", "--url", mcpUrl, "--suite", "all", "--spec-version", revision];
      const ran = await run([...args, "--output-dir", out, "--timeout", "60000"]);
      const checks = readChecks(out);
      assert.ok(checks.size > 20, `the suite ran: ${ran.output.slice(-2000)}`);
      const unexplained: string[] = [];
      const used = new Set<string>();
      let passed = 0;
      for (const [scenario, list] of checks) {
        for (const check of list) {
          if (check.status === "SUCCESS" || check.status === "INFO") {
            passed += 1;
            continue;
          }
          const recorded = JSON.stringify(check);
          const found = exclusionFor(revision, scenario, check.id);
          if (!found) unexplained.push(`${scenario}:${check.id} ${check.status}: ${recorded.slice(0, 400)}`);
          else if (!found[1].answer.test(recorded)) {
            unexplained.push(
              `${scenario}:${check.id}: pdpp's answer is not ${found[1].answer}: ${recorded.slice(0, 400)}`,
            );
          } else used.add(found[0]);
        }
      }
      assert.deepEqual(unexplained, [], `checks that fail without a reason at ${revision}`);
      const listed = NOT_APPLICABLE.filter((e) => e.revisions.includes(revision)).flatMap((e) => e.checks);
      assert.deepEqual(
        listed.filter((key) => !used.has(key)),
        [],
        `exclusions that no longer occur at ${revision} (remove them)`,
      );
      t.diagnostic(`${revision}: ${checks.size} scenarios, ${passed} checks passed, ${used.size} exclusions`);
    });
  }
});
