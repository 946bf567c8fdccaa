// Registry-wide invariants over ALL_TOOLS and the published tools/list, pinned by per-tool
// snapshots (test/mcp/__toolsnaps__, regenerated only with UPDATE_TOOLSNAPS=1).
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { DESCRIPTION_CHARS, INSTRUCTIONS_CHARS, TOOLS_LIST_BYTES } from "../../src/core/render/budget.js";
import { INSTRUCTIONS } from "../../src/mcp/instructions.js";
import { ALL_TOOLS } from "../../src/mcp/tools/index.js";
import { buildWorld, type World } from "./fixtures/world.js";

const SNAP_DIR = join(import.meta.dirname, "__toolsnaps__");
const EXPECTED = ["schema", "query_records", "aggregate", "search", "fetch", "read_record_field"];
const ALLOWED_KEYS = new Set([
  "type",
  "properties",
  "items",
  "enum",
  "minimum",
  "maximum",
  "minLength",
  "required",
  "additionalProperties",
  "description",
]);

/** Problems that make an input schema non-portable (Gemini, Anthropic/OpenAI tool APIs). */
export function portabilityProblems(schema: unknown, path = "$"): string[] {
  if (!schema || typeof schema !== "object") return [`${path}: not an object`];
  const s = schema as Record<string, unknown>;
  const out: string[] = [];
  for (const key of Object.keys(s)) if (!ALLOWED_KEYS.has(key)) out.push(`${path}: keyword ${key}`);
  if (Array.isArray(s.type)) out.push(`${path}: type array`);
  if (!["object", "array", "string", "integer", "number", "boolean"].includes(s.type as string)) {
    out.push(`${path}: type ${String(s.type)}`);
  }
  if (s.type === "object") {
    if (s.additionalProperties !== false) out.push(`${path}: additionalProperties must be false`);
    for (const [k, v] of Object.entries((s.properties as Record<string, unknown>) ?? {})) {
      out.push(...portabilityProblems(v, `${path}.${k}`));
    }
  }
  if (s.type === "array") out.push(...portabilityProblems(s.items, `${path}[]`));
  return out;
}

describe("tools/list", () => {
  let world: World;
  let client: Client;
  let listed: Awaited<ReturnType<Client["listTools"]>>;
  before(async () => {
    world = await buildWorld();
    client = await world.client();
    listed = await client.listTools();
  });
  after(() => world.close());

  test("has exactly the six tools, in ALL_TOOLS order", () => {
    assert.deepEqual(
      listed.tools.map((t) => t.name),
      EXPECTED,
    );
    assert.deepEqual(
      ALL_TOOLS.map((t) => t.name),
      EXPECTED,
    );
  });

  test("every tool: title, bounded neutral description, read-only annotations, output schema", () => {
    for (const tool of listed.tools) {
      assert.ok(tool.title && tool.title.length > 0, tool.name);
      assert.ok((tool.description ?? "").length <= DESCRIPTION_CHARS, `${tool.name} description too long`);
      for (const word of ["messages", "mbox", "chatgpt", "mail", "connector_instance_id"]) {
        assert.ok(!(tool.description ?? "").toLowerCase().includes(word), `${tool.name} mentions ${word}`);
      }
      assert.deepEqual(tool.annotations, {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      assert.equal(tool.outputSchema?.type, "object", tool.name);
      assert.ok(!JSON.stringify(tool.inputSchema).includes("connector_instance_id"));
    }
  });

  test("every input schema is portable and strict", () => {
    for (const tool of listed.tools) assert.deepEqual(portabilityProblems(tool.inputSchema), [], tool.name);
  });

  test("the portability check rejects combinators, refs and loose objects", () => {
    assert.equal(
      portabilityProblems({ type: "object", properties: {}, additionalProperties: false }).length,
      0,
    );
    assert.ok(portabilityProblems({ type: "object", oneOf: [], additionalProperties: false }).length > 0);
    assert.ok(
      portabilityProblems({ type: "object", properties: { a: { $ref: "#/x" } }, additionalProperties: false })
        .length > 0,
    );
    assert.ok(portabilityProblems({ type: "object", properties: {}, additionalProperties: {} }).length > 0);
    assert.ok(portabilityProblems({ type: ["string", "null"] }).length > 0);
  });

  test(`serialized tools/list fits ${TOOLS_LIST_BYTES} bytes`, () => {
    const bytes = Buffer.byteLength(JSON.stringify(listed), "utf8");
    assert.ok(bytes <= TOOLS_LIST_BYTES, `tools/list is ${bytes} bytes`);
  });

  test("instructions: bounded, and the first 512 chars say what every agent needs", () => {
    const instructions = client.getInstructions() ?? "";
    assert.equal(instructions, INSTRUCTIONS);
    assert.ok(instructions.length <= INSTRUCTIONS_CHARS, `${instructions.length} chars`);
    const head = instructions.slice(0, 512);
    for (const needle of [
      "`schema`",
      "connection_id",
      "typed",
      "cursor",
      "fields",
      "limit",
      "read_record_field",
    ]) {
      assert.ok(head.includes(needle), `first 512 chars lack ${needle}`);
    }
    assert.equal(client.getServerVersion()?.name, "pdpp");
  });

  test("snapshots: each tool's published definition matches __toolsnaps__", () => {
    const update = process.env.UPDATE_TOOLSNAPS === "1";
    if (update) mkdirSync(SNAP_DIR, { recursive: true });
    for (const tool of listed.tools) {
      const file = join(SNAP_DIR, `${tool.name}.snap.json`);
      const actual = `${JSON.stringify(tool, null, 2)}\n`;
      if (update) {
        writeFileSync(file, actual);
        continue;
      }
      assert.ok(existsSync(file), `missing snapshot ${file}; run with UPDATE_TOOLSNAPS=1 and review`);
      // Compared as JSON so a formatter touching the file does not matter; any value change does.
      assert.deepEqual(
        JSON.parse(actual),
        JSON.parse(readFileSync(file, "utf8")),
        `${tool.name} changed; review and run with UPDATE_TOOLSNAPS=1`,
      );
    }
  });

  test("resource templates: record, field-window and blob", async () => {
    const templates = await client.listResourceTemplates();
    assert.deepEqual(
      templates.resourceTemplates.map((t) => t.uriTemplate),
      ["pdpp://record/{handle}", "pdpp://field-window/{handle}", "pdpp://blob/{handle}"],
    );
  });
});
