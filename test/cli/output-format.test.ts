// Pure CLI output: aligned tables and the paste-ready MCP client setup snippets.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse as parseToml } from "smol-toml";
import { clientSetupSnippets, shellQuote } from "../../src/cli/client-setup.js";
import { formatTable } from "../../src/cli/table.js";

describe("formatTable", () => {
  it("pads every column but the last to its widest cell", () => {
    assert.equal(
      formatTable(
        ["A", "BB"],
        [
          ["xxx", "y"],
          ["z", "long value"],
        ],
      ),
      "A    BB\nxxx  y\nz    long value",
    );
  });
});

describe("clientSetupSnippets", () => {
  const input = {
    node: "/usr/bin/node",
    bin: "/opt/pdpp/bin/pdpp.js",
    home: "/tmp/my home",
    token: "pdpp_ct_abc-_1",
    mcpUrl: "http://127.0.0.1:7662/mcp",
  };
  const snippets = clientSetupSnippets(input);

  it("covers every client, hosted last", () => {
    assert.deepEqual(
      snippets.map((s) => s.title),
      [
        "Claude Desktop",
        "Claude Code",
        "Codex",
        "Cursor",
        "Gemini CLI",
        "opencode",
        "Generic stdio",
        "Hosted (Streamable HTTP)",
        "opencode (hosted)",
      ],
    );
    assert.equal(clientSetupSnippets({ ...input, mcpUrl: undefined }).length, 7);
  });

  it("gives opencode its own shape: one command array, environment, and a remote entry with the header", () => {
    const config = (title: string) => JSON.parse(snippets.find((s) => s.title === title)?.text ?? "null");
    assert.deepEqual(config("opencode"), {
      $schema: "https://opencode.ai/config.json",
      mcp: {
        pdpp: {
          type: "local",
          command: ["/usr/bin/node", "/opt/pdpp/bin/pdpp.js", "mcp", "--store", "/tmp/my home"],
          enabled: true,
          environment: { PDPP_TOKEN: "pdpp_ct_abc-_1" },
        },
      },
    });
    assert.deepEqual(config("opencode (hosted)"), {
      $schema: "https://opencode.ai/config.json",
      mcp: {
        pdpp: {
          type: "remote",
          url: "http://127.0.0.1:7662/mcp",
          enabled: true,
          headers: { Authorization: "Bearer pdpp_ct_abc-_1" },
        },
      },
    });
  });

  it("emits JSON and TOML that parse to the same stdio server", () => {
    const expected = {
      command: "/usr/bin/node",
      args: ["/opt/pdpp/bin/pdpp.js", "mcp", "--store", "/tmp/my home"],
      env: { PDPP_TOKEN: "pdpp_ct_abc-_1" },
    };
    assert.deepEqual(JSON.parse(snippets[0].text), { mcpServers: { pdpp: expected } });
    assert.deepEqual(JSON.parse(JSON.stringify(parseToml(snippets[2].text))), {
      mcp_servers: { pdpp: expected },
    });
  });

  it("quotes shell words that need it", () => {
    assert.equal(
      snippets[1].text,
      "claude mcp add pdpp --env PDPP_TOKEN=pdpp_ct_abc-_1 -- /usr/bin/node /opt/pdpp/bin/pdpp.js mcp --store '/tmp/my home'",
    );
    assert.equal(shellQuote("it's"), `'it'\\''s'`);
  });
});
