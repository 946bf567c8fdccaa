// `pdpp demo --no-serve` on an empty directory, then its printed stdio setup driven by the SDK
// client over real stdio: tools/list → search → fetch, with the demo's client token.
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { parse as parseToml } from "smol-toml";
import { BIN, runPdpp, tempDir } from "./run-cli.js";

interface StdioEntry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The text under a `── <title> — …` header of the demo output, up to the next header. */
function snippet(stdout: string, title: string): string {
  const start = stdout.indexOf(`── ${title} — `);
  assert.ok(start >= 0, `no ${title} block in:\n${stdout}`);
  const body = stdout.slice(stdout.indexOf("\n", start) + 1);
  const end = body.search(/\n(── |hosted MCP: )/);
  return (end >= 0 ? body.slice(0, end) : body).trim();
}

describe("pdpp demo", () => {
  it("sets up a fresh home whose printed stdio config finishes search → fetch", async () => {
    const tmp = tempDir();
    const home = join(tmp.dir, "demo");
    try {
      // PDPP_HOME points elsewhere: the demo must use --home and never touch it.
      const result = await runPdpp(["demo", "--no-serve", "--home", home], {
        home: join(tmp.dir, "real-home"),
      });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(existsSync(join(tmp.dir, "real-home")), false);
      assert.equal(statSync(join(home, "owner-token")).mode & 0o777, 0o600);
      assert.match(result.stdout, /^ {2}mbox +Work mail +cin_[0-9a-f]{12} +\d+ records/m);
      assert.match(result.stdout, /^ {2}mbox +Personal mail +cin_[0-9a-f]{12} +\d+ records/m);
      assert.match(result.stdout, /^ {2}chatgpt +ChatGPT +cin_[0-9a-f]{12}/m);
      assert.match(result.stdout, /^ {2}claude +Claude +cin_[0-9a-f]{12}/m);
      assert.match(result.stdout, /^ {2}claude-code +Claude Code +cin_[0-9a-f]{12} +\d+ records/m);
      assert.match(result.stdout, /^ {2}csv\.bank +Bank +cin_[0-9a-f]{12}/m);
      assert.match(
        result.stdout,
        /^grant grt_[0-9a-f]{16} for 10 streams \(chatgpt:conversations, chatgpt:messages, claude:conversations, claude:messages, claude:projects, claude:project_docs, claude-code:sessions, claude-code:messages, csv\.bank:transactions, mbox:messages\)/m,
      );
      const token = /^client token \(shown once; keep it secret\): (pdpp_ct_\S+)$/m.exec(result.stdout)?.[1];
      assert.ok(token);

      const desktop = JSON.parse(snippet(result.stdout, "Claude Desktop")) as {
        mcpServers: { pdpp: StdioEntry };
      };
      const entry = desktop.mcpServers.pdpp;
      assert.deepEqual(entry, {
        command: process.execPath,
        args: [BIN, "mcp", "--store", home],
        env: { PDPP_TOKEN: token },
      });
      const codex = JSON.parse(JSON.stringify(parseToml(snippet(result.stdout, "Codex"))));
      assert.deepEqual(codex, { mcp_servers: { pdpp: entry } });
      assert.equal(
        snippet(result.stdout, "Claude Code"),
        `claude mcp add pdpp --env PDPP_TOKEN=${token} -- ${process.execPath} ${BIN} mcp --store ${home}`,
      );
      assert.equal(readFileSync(join(home, "owner-token"), "utf8").includes(token), false);

      const transport = new StdioClientTransport({
        command: entry.command,
        args: entry.args,
        env: { ...getDefaultEnvironment(), ...entry.env },
        cwd: tmp.dir,
        stderr: "pipe",
      });
      const client = new Client({ name: "demo-test", version: "1" });
      await client.connect(transport);
      try {
        const tools = await client.listTools();
        assert.deepEqual(tools.tools.map((t) => t.name).sort(), [
          "aggregate",
          "fetch",
          "query_records",
          "read_record_field",
          "schema",
          "search",
        ]);
        const search = await client.callTool({ name: "search", arguments: { query: "Lisbon", limit: 3 } });
        assert.notEqual(search.isError, true, JSON.stringify(search.content));
        const hits = (
          search.structuredContent as { results: { id: string; stream: string; display_name: string }[] }
        ).results;
        assert.ok(hits.length > 0 && hits.length <= 3);
        assert.match(hits[0].id, /^cin_[0-9a-f]{12}\/[a-z_]+:\S+$/);
        const fetched = await client.callTool({ name: "fetch", arguments: { id: hits[0].id } });
        assert.notEqual(fetched.isError, true, JSON.stringify(fetched.content));
        const doc = fetched.structuredContent as {
          id: string;
          title: string;
          text: string;
          metadata: Record<string, unknown>;
        };
        assert.equal(doc.id, hits[0].id);
        assert.match(`${doc.title}\n${doc.text}`, /Lisbon/i);
        const blocks = fetched.content as { type: string; text: string }[];
        assert.equal(blocks.length, 1);
        assert.deepEqual(JSON.parse(blocks[0].text), doc);

        // An agent reading another agent's history: the Claude Code session that chased the latency.
        const agent = await client.callTool({
          name: "search",
          arguments: { query: "p95 latency reports deploy", limit: 10 },
        });
        assert.notEqual(agent.isError, true, JSON.stringify(agent.content));
        const agentHits = (agent.structuredContent as { results: { id: string; stream: string }[] }).results;
        const claudeCode = /^ {2}claude-code +Claude Code +(cin_[0-9a-f]{12})/m.exec(result.stdout)?.[1];
        assert.ok(
          agentHits.some((h) => h.id.startsWith(`${claudeCode}/`)),
          JSON.stringify(agentHits),
        );
      } finally {
        await client.close();
      }

      // pdpp doctor on a config with the demo server twice and one that cannot start.
      const configPath = join(tmp.dir, "claude_desktop_config.json");
      writeFileSync(
        configPath,
        JSON.stringify({
          mcpServers: { pdpp: entry, "pdpp-copy": entry, broken: { command: join(tmp.dir, "missing") } },
        }),
      );
      const doctor = await runPdpp(["doctor", "--config", configPath, "--timeout", "60000"], { home });
      assert.equal(doctor.code, 1, doctor.stderr);
      const lines = doctor.stdout.trim().split("\n");
      assert.equal(lines[0], `config: ${configPath} (json, 3 servers)`);
      const tools = "aggregate, fetch, query_records, read_record_field, schema, search";
      const sortedTools = (line: string) =>
        line.replace(/: (.*)$/, (_, list: string) => `: ${list.split(", ").sort().join(", ")}`);
      assert.equal(sortedTools(lines[1]), `  ok    pdpp       6 tools: ${tools}`);
      assert.equal(sortedTools(lines[2]), `  ok    pdpp-copy  6 tools: ${tools}`);
      assert.match(lines[3], /^ {2}FAIL {2}broken {5}\S/);
      assert.match(lines[3], /^ {2}FAIL {2}broken {5}command not found: \S+missing$/);
      assert.deepEqual(lines.slice(4), [
        "duplicate: pdpp, pdpp-copy run the same server (same command, args and env, or URL); keep one",
        `shared: pdpp, pdpp-copy all expose ${tools}; clients tell them apart by server (search: Claude Code mcp__pdpp__search, mcp__pdpp-copy__search; Codex mcp__pdpp__search, mcp__pdpp-copy__search; Gemini CLI search, pdpp-copy__search)`,
        "result: 1 failing server, 0 name warnings (0 too long, 0 clashing, 0 refused), 6 shared tool names",
      ]);

      // A second run re-imports nothing new and issues a fresh grant.
      const again = await runPdpp(["demo", "--no-serve", "--home", home], {
        home: join(tmp.dir, "real-home"),
      });
      assert.equal(again.code, 0, again.stderr);
      assert.match(
        again.stdout,
        /^ {2}mbox +Work mail +cin_[0-9a-f]{12} +\d+ records \(added 0, unchanged \d+, rejected 0\)$/m,
      );
    } finally {
      tmp.cleanup();
    }
  });
});
