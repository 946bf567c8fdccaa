// Tool-name qualification next to other MCP servers (30-mcp.md, seeds/004).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  boundedName,
  checkToolNames,
  MAX_TOOL_NAME_CHARS,
  NAME_DELIMITER,
  parseQualifiedName,
  qualifyName,
  sanitizeName,
  sanitizeServer,
  ToolNameRegistry,
} from "../../src/mcp/names.js";

describe("tool names", () => {
  test("short delimiter; qualify and parse round-trip", () => {
    assert.equal(NAME_DELIMITER, "__");
    assert.equal(qualifyName("pdpp", "search"), "pdpp__search");
    assert.deepEqual(parseQualifiedName(qualifyName("pdpp", "read_record_field")), {
      server: "pdpp",
      tool: "read_record_field",
    });
    assert.deepEqual(parseQualifiedName(qualifyName("srv", "a__b")), { server: "srv", tool: "a__b" });
    assert.equal(parseQualifiedName("search"), null);
    assert.equal(parseQualifiedName("__search"), null);
    assert.equal(parseQualifiedName("pdpp__"), null);
  });

  test("sanitising keeps only [A-Za-z0-9_-]", () => {
    assert.equal(sanitizeName("my.server/π v2"), "my_server___v2");
    assert.equal(boundedName("my.server", "fetch"), "my_server__fetch");
  });

  test("≤ 64 chars with a stable hash suffix that tells long names apart", () => {
    const a = boundedName("s".repeat(50), `${"t".repeat(40)}_a`);
    const b = boundedName("s".repeat(50), `${"t".repeat(40)}_b`);
    assert.equal(a.length, MAX_TOOL_NAME_CHARS);
    assert.equal(b.length, MAX_TOOL_NAME_CHARS);
    assert.notEqual(a, b);
    assert.equal(a, boundedName("s".repeat(50), `${"t".repeat(40)}_a`));
    assert.match(a, /^s{26}__t{27}-[0-9a-f]{8}$/);
    assert.equal(boundedName("pdpp", "search"), "pdpp__search");
  });

  test("qualify only on collision; the registry resolves every display name; fallbacks are noted", () => {
    const logged: string[] = [];
    const registry = new ToolNameRegistry({ log: (n) => logged.push(`${n.reason}:${n.display}`) });
    const map = registry.registerAll([
      { server: "pdpp", tools: ["schema", "search", "fetch"] },
      { server: "github", tools: ["search", "fetch", "create_issue"] },
      { server: "x".repeat(70), tools: ["fetch"] },
    ]);
    assert.deepEqual(
      [...map.keys()].sort(),
      [
        "create_issue",
        "github__fetch",
        "github__search",
        "pdpp__fetch",
        "pdpp__search",
        "schema",
        boundedName("x".repeat(70), "fetch"),
      ].sort(),
    );
    assert.deepEqual(registry.resolve("pdpp__search"), { server: "pdpp", tool: "search" });
    assert.deepEqual(registry.resolve(boundedName("x".repeat(70), "fetch")), {
      server: "x".repeat(70),
      tool: "fetch",
    });
    assert.equal(registry.resolve("nope"), undefined);
    assert.ok(logged.includes("collision:pdpp__search"));
    assert.ok(logged.some((l) => l.startsWith("shortened:")));
  });

  test("checkToolNames reports collisions and over-long qualified names", () => {
    const report = checkToolNames([
      { server: "pdpp", tools: ["search", "fetch"] },
      { server: "web", tools: ["search"] },
      { server: "y".repeat(60), tools: ["read_record_field"] },
    ]);
    assert.deepEqual(report.collisions, ["search (pdpp, web)"]);
    assert.deepEqual(report.tooLong, [`${"y".repeat(60)}__read_record_field`]);
  });

  test("a unique bare name over 64 chars is bounded, stably, and still resolves", () => {
    const long = `list_${"very_long_".repeat(8)}tool`;
    const registry = new ToolNameRegistry();
    const map = registry.registerAll([{ server: "docs", tools: [long, "short"] }]);
    const names = [...map.keys()].sort();
    assert.equal(names.length, 2);
    const bounded = names.find((n) => n !== "short") as string;
    assert.equal(bounded.length, MAX_TOOL_NAME_CHARS);
    assert.match(bounded, /^list_very_long_[a-z_]+-[0-9a-f]{8}$/);
    assert.deepEqual(registry.resolve(bounded), { server: "docs", tool: long });
    assert.deepEqual(
      registry.notes.map((n) => n.reason),
      ["shortened"],
    );
    const again = new ToolNameRegistry().registerAll([{ server: "docs", tools: ["short", long] }]);
    assert.deepEqual([...again.keys()].sort(), names);
  });

  test("a.b and a_b on one server stay two tools, whatever the listing order", () => {
    for (const tools of [
      ["a.b", "a_b"],
      ["a_b", "a.b"],
    ]) {
      const registry = new ToolNameRegistry();
      const map = registry.registerAll([{ server: "srv", tools }]);
      assert.equal(map.size, 2);
      assert.deepEqual(registry.resolve("a_b"), { server: "srv", tool: "a_b" });
      const other = [...map.keys()].find((k) => k !== "a_b") as string;
      assert.match(other, /^a_b-[0-9a-f]{8}$/);
      assert.deepEqual(registry.resolve(other), { server: "srv", tool: "a.b" });
    }
    // Two sanitised twins neither of which is already clean: both get their own suffix.
    const registry = new ToolNameRegistry();
    const map = registry.registerAll([{ server: "srv", tools: ["a.b", "a+b"] }]);
    assert.equal(map.size, 2);
    assert.deepEqual([...map.values()].map((v) => v.tool).sort(), ["a+b", "a.b"]);
    // Across servers, twins are qualified and both kept.
    const cross = new ToolNameRegistry().registerAll([
      { server: "one", tools: ["a.b"] },
      { server: "two", tools: ["a_b"] },
    ]);
    assert.deepEqual([...cross.keys()].sort(), ["one__a_b", "two__a_b"]);
  });

  test("sanitising works per code point, so parse gives back the sanitised tool exactly", () => {
    assert.equal(sanitizeName("mail📬"), "mail_");
    assert.equal(sanitizeName("𝔣𝔬𝔬"), "___");
    const cases: [string, string][] = [
      ["srv", "📬inbox"],
      ["srv📬", "fetch"],
      ["my_server_", "search"],
      ["a__b", "_tool"],
      ["📬", "x📬y"],
    ];
    for (const [server, tool] of cases) {
      const display = boundedName(server, tool);
      assert.deepEqual(parseQualifiedName(display), {
        server: sanitizeServer(server),
        tool: sanitizeName(tool),
      });
    }
    assert.equal(boundedName("srv", "📬inbox"), "srv___inbox");
    assert.equal(boundedName("srv📬", "fetch"), "srv__fetch");
    const registry = new ToolNameRegistry();
    registry.registerAll([
      { server: "mail📬", tools: ["search"] },
      { server: "web", tools: ["search"] },
    ]);
    const parsed = parseQualifiedName("mail__search");
    assert.deepEqual(parsed, { server: "mail", tool: "search" });
    assert.deepEqual(registry.resolve("mail__search"), { server: "mail📬", tool: "search" });
  });
});
