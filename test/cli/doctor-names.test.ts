// Issue 20 item 10: `pdpp doctor` reports each client's real tool-name rule (Claude Code, Codex,
// Cursor, Gemini CLI), counts names a client shortens, refuses or filters out as warnings, and
// reports tools of different servers that a client gives one name (`a.b`/`a_b`, `a__b`). Through
// the CLI, against real stdio MCP servers that list the given tool names.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT, runPdpp, tempDir } from "./run-cli.js";

const SERVER = join(REPO_ROOT, "test", "cli", "fixtures", "named-tools-server.mjs");
const entry = (tools: string[]) => ({ command: process.execPath, args: [SERVER, JSON.stringify(tools)] });
const LONG_SERVER = "enterprise-database-management";
const LONG_TOOL = "synchronize_customer_data_across_systems";

describe("pdpp doctor: client tool-name rules", () => {
  it("names over-long, refused and clashing names per client, as warnings, with the rules", async () => {
    const tmp = tempDir();
    try {
      const config = join(tmp.dir, "claude_desktop_config.json");
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: {
            kb: entry(["notes.read", "search"]),
            "my.kb": entry(["read"]),
            my_kb: entry(["read", "search"]),
            team: entry(["docs__find"]),
            team__docs: entry(["find"]),
            [LONG_SERVER]: entry([LONG_TOOL]),
          },
        }),
      );
      const result = await runPdpp(["doctor", "--config", config, "--timeout", "60000"], { home: tmp.dir });
      assert.equal(result.code, 0, result.stderr);
      const lines = result.stdout.trim().split("\n");
      const warnings = lines.filter((l) => l.startsWith("warning"));
      const raw = `mcp__${LONG_SERVER}__${LONG_TOOL}`;
      const sha1 = createHash("sha1").update(raw).digest("hex");
      assert.deepEqual(warnings, [
        "warning (Codex): server my.kb: Codex refuses this server name (it must match ^[a-zA-Z0-9_-]+$); the server does not start",
        `warning (Claude Code): ${raw} is 77 chars (limit 64): the Anthropic API refuses the request while this tool is listed`,
        // Codex keeps a 24-char prefix and appends the 40-hex SHA-1 of the raw name.
        `warning (Codex): ${raw} is 77 chars (limit 64): Codex shortens it to ${raw.slice(0, 24)}${sha1}`,
        `warning (Cursor): ${LONG_SERVER} + ${LONG_TOOL} is 70 chars (limit 59): Cursor filters the tool out`,
        "warning (Claude Code): mcp__kb__notes.read: the tool name has characters outside [A-Za-z0-9_-]: the Anthropic API refuses the request while it is listed",
        "warning (Claude Code): my.kb/read and my_kb/read are both named mcp__my_kb__read: the model sees one name for two tools",
        "warning (Claude Code): team/docs__find and team__docs/find are both named mcp__team__docs__find: the model sees one name for two tools",
        "warning (Codex): team/docs__find and team__docs/find are both named mcp__team__docs__find: Codex keeps team/docs__find and skips team__docs/find",
      ]);
      assert.equal(`${raw.slice(0, 24)}${sha1}`.length, 64);
      // Every client warned about is explained by its own rule; Gemini CLI had nothing to say.
      assert.deepEqual(
        lines.filter((l) => l.startsWith("rule")).map((l) => l.slice(0, l.indexOf(":"))),
        ["rule (Claude Code)", "rule (Codex)", "rule (Cursor)"],
      );
      // pdpp's own scheme (server__tool-<8 hex>) is printed as no client's.
      assert.ok(!/__\S+-[0-9a-f]{8}\b/.test(lines.slice(1).join("\n")), result.stdout);
      assert.equal(
        lines.at(-1),
        "result: 0 failing servers, 8 name warnings (3 too long, 3 clashing, 2 refused), 2 shared tool names",
      );
      assert.ok(
        lines.includes(
          "shared: kb, my_kb all expose search; clients tell them apart by server (search: Claude Code mcp__kb__search, mcp__my_kb__search; Codex mcp__kb__search, mcp__my_kb__search; Gemini CLI search, my_kb__search)",
        ),
        result.stdout,
      );
    } finally {
      tmp.cleanup();
    }
  });

  it("Gemini CLI: a bare name over 63 chars is cut to 28 + ___ + the last 32; a taken name becomes server__tool", async () => {
    const tmp = tempDir();
    try {
      const long = `read_${"x".repeat(60)}_end`;
      const config = join(tmp.dir, "settings.json");
      writeFileSync(config, JSON.stringify({ mcpServers: { g: entry([long]), h: entry([long]) } }));
      const result = await runPdpp(["doctor", "--config", config, "--timeout", "60000"], { home: tmp.dir });
      assert.equal(result.code, 0, result.stderr);
      const gemini = result.stdout.split("\n").filter((l) => l.startsWith("warning (Gemini CLI)"));
      assert.deepEqual(gemini, [
        `warning (Gemini CLI): ${long} is ${long.length} chars (limit 63): Gemini CLI shortens it to ${long.slice(0, 28)}___${long.slice(-32)}`,
        `warning (Gemini CLI): h__${long} is ${long.length + 3} chars (limit 64): the Gemini API refuses this function name`,
      ]);
      assert.match(result.stdout, /^rule \(Gemini CLI\): bare tool name/m);
    } finally {
      tmp.cleanup();
    }
  });
});
