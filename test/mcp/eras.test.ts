// Both protocol eras from one server: a 2025-11-25 client (the v1 SDK Client, initialize handshake)
// and a 2026-07-28 client (the v2 SDK Client pinned to that revision: server/discover, the envelope
// on every request) get the same six tools and the same answers, over hosted HTTP and over a
// spawned `pdpp mcp` on stdio, both reading the same RS.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioTransport } from "@modelcontextprotocol/client/stdio";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as LegacyHttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Served, serveWorld } from "./fixtures/served.js";
import { buildWorld, type World } from "./fixtures/world.js";

const BIN = join(import.meta.dirname, "..", "..", "bin", "pdpp.js");

/** What both SDK clients have in common, as these tests use it. */
interface AnyClient {
  listTools(): Promise<{ tools: unknown[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
  close(): Promise<void>;
}

interface Answer {
  content: { type: string; text?: string; uri?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** The tool result as the model sees it: both channels and the error flag (no transport _meta). */
function answer(result: unknown): Answer {
  const r = result as Answer;
  return { content: r.content, structuredContent: r.structuredContent, isError: r.isError === true };
}

/** The same journey through every tool, the error path and a resource read; every answer in order. */
async function journey(client: AnyClient, world: World): Promise<unknown[]> {
  const answers: unknown[] = [];
  const call = async (name: string, args: Record<string, unknown>) => {
    const a = answer(await client.callTool({ name, arguments: args }));
    answers.push({ name, args, ...a });
    return a;
  };
  answers.push((await client.listTools()).tools);
  await call("schema", {});
  await call("schema", { stream: "messages", connection_id: world.work });
  const hits = await call("search", { query: "quarterly archive" });
  const id = (hits.structuredContent as { results: { id: string }[] }).results[0].id;
  await call("fetch", { id });
  await call("query_records", { stream: "messages", connection_id: world.work, limit: 3 });
  await call("aggregate", { stream: "messages", metric: "count", group_by: "from" });
  const window = await call("read_record_field", {
    id: `${world.work}/messages:long-1`,
    field_path: "body",
    limit_chars: 500,
  });
  await call("fetch", { id: "messages:no/such//id" });
  const link = window.content.find((c) => c.type === "resource_link")?.uri;
  assert.ok(link, "an incomplete window links the next one");
  answers.push((await client.readResource({ uri: link })).contents);
  return answers;
}

describe("protocol eras: 2025-11-25 and 2026-07-28 clients, one server", () => {
  let world: World;
  let url: string;
  let served: Served;
  before(async () => {
    world = await buildWorld();
    served = await serveWorld(world);
    url = served.url;
  });
  after(async () => {
    await served.close();
    await world.close();
  });

  const headers = () => ({ authorization: `Bearer ${world.token}` });
  const stdioParams = () => ({
    command: process.execPath,
    args: [BIN, "mcp", "--provider-url", url],
    env: { PDPP_TOKEN: world.token, PATH: process.env.PATH ?? "" },
    stderr: "pipe" as const,
  });

  async function legacyHttp(): Promise<AnyClient> {
    const client = new LegacyClient({ name: "era-2025", version: "1" });
    await client.connect(
      new LegacyHttpTransport(new URL(`${url}/mcp`), { requestInit: { headers: headers() } }),
    );
    assert.equal(client.getServerVersion()?.name, "pdpp");
    return client as unknown as AnyClient;
  }

  async function legacyStdio(): Promise<AnyClient> {
    const client = new LegacyClient({ name: "era-2025", version: "1" });
    await client.connect(new LegacyStdioTransport(stdioParams()));
    return client as unknown as AnyClient;
  }

  async function modern(transport: ModernHttpTransport | ModernStdioTransport): Promise<AnyClient> {
    const client = new ModernClient(
      { name: "era-2026", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(transport);
    assert.equal(client.getProtocolEra(), "modern");
    assert.equal(client.getServerVersion()?.name, "pdpp");
    return client as unknown as AnyClient;
  }

  test("the same six tools and the same answers over HTTP and stdio, for both eras", async () => {
    const clients: [string, () => Promise<AnyClient>][] = [
      ["2025-11-25 over HTTP", legacyHttp],
      [
        "2026-07-28 over HTTP",
        () => modern(new ModernHttpTransport(new URL(`${url}/mcp`), { requestInit: { headers: headers() } })),
      ],
      ["2025-11-25 over stdio", legacyStdio],
      ["2026-07-28 over stdio", () => modern(new ModernStdioTransport(stdioParams()))],
    ];
    let reference: unknown[] | undefined;
    for (const [label, connect] of clients) {
      const client = await connect();
      try {
        const answers = await journey(client, world);
        const tools = answers[0] as { name: string }[];
        assert.deepEqual(
          tools.map((t) => t.name),
          ["schema", "query_records", "aggregate", "search", "fetch", "read_record_field"],
          label,
        );
        if (reference === undefined) reference = answers;
        else assert.deepEqual(answers, reference, `${label} answers as the 2025 HTTP client does`);
      } finally {
        await client.close();
      }
    }
  });
});
