// One store under the relevance bench: the collection imported through pdpp's real jsonl importer,
// one client grant over its connection (a hidden decoy connection beside it), and queries answered
// through the real read paths: GET /v1/search via the in-process app, and the MCP `search` tool.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { decodeRecordId, hashToken, newGrantId, newToken } from "../src/core/ids.js";
import type { Manifest } from "../src/core/manifest.js";
import { importFile } from "../src/importers/import-file.js";
import { InProcessRsClient } from "../src/mcp/rs-client.js";
import { createPdppMcpServer } from "../src/mcp/server.js";
import { createApp } from "../src/rs/app.js";
import { openPostgresStore } from "../src/store/postgres/postgres-store.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import type { Store } from "../src/store/store.js";
import { inProcessOwnerApi } from "./import-jsonl.js";
import type { Collection } from "./relevance-collection.js";

const BASE = "http://127.0.0.1:7662";
const STREAM = "docs";
/** Documents of the hidden decoy connection: copies of the first ones, under other ids. */
const DECOY_DOCS = 200;
export const DECOY_PREFIX = "hidden-";

/** BEIR documents as a person would declare them: title is the title, title and text are searched. */
export function beirManifest(name: string): Manifest {
  return {
    connector_key: `beir.${name}`,
    display_name: `BEIR ${name}`,
    version: "1",
    streams: [
      {
        name: STREAM,
        primary_key: ["_id"],
        title_field: "title",
        schema: {
          type: "object",
          properties: {
            _id: { type: "string" },
            title: { type: "string" },
            text: { type: "string" },
            metadata: { type: "object" },
          },
        },
        query: { search: ["title", "text"] },
      },
    ],
  };
}

function writeJsonl(path: string, docs: readonly { id: string; title: string; text: string }[]): void {
  writeFileSync(
    path,
    docs.map((d) => JSON.stringify({ _id: d.id, title: d.title, text: d.text })).join("\n"),
  );
}

export interface SearchAnswer {
  /** Doc ids, best first (up to the limit asked). */
  ids: string[];
  ms: number;
  /** A non-200 answer: status and the start of its body. */
  error?: string;
  /** Hits not in the granted connection and stream, or decoy ids: each is a defect. */
  outside: string[];
}

export interface StoreUnderTest {
  backend: "sqlite" | "postgres";
  importSeconds: number;
  search(q: string, limit: number): Promise<SearchAnswer>;
  /** The MCP `search` tool's result ids (record ids decoded), for `limit` ≤ 100. */
  mcpSearch(q: string, limit: number): Promise<{ ids: string[]; error?: string }>;
  close(): Promise<void>;
}

export function pgUrl(): string {
  return (
    process.env.PDPP_BENCH_PG_URL ?? process.env.PDPP_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test"
  );
}

async function openBackend(backend: "sqlite" | "postgres") {
  if (backend === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "pdpp-bench-relevance-"));
    const store = await openSqliteStore({ path: join(dir, "pdpp.db") });
    return { store, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const url = pgUrl();
  const schema = `pdpp_bench_relevance_${process.pid}`;
  const store = await openPostgresStore({ url, schema });
  const drop = async () => {
    const pg = await import("pg");
    const client = new pg.default.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  };
  return { store, drop };
}

async function importJsonl(
  store: Store,
  app: ReturnType<typeof createApp>,
  ownerToken: string,
  args: {
    path: string;
    label: string;
    manifest: Manifest;
  },
): Promise<string> {
  const result = await importFile(inProcessOwnerApi(store, app, ownerToken), {
    kind: "jsonl",
    path: args.path,
    connectionLabel: args.label,
    generic: { manifest: args.manifest },
  });
  if (!result.connectionId) throw new Error(`importing ${args.path} stored nothing`);
  return result.connectionId;
}

export async function openStoreUnderTest(
  backend: "sqlite" | "postgres",
  collection: Collection,
): Promise<StoreUnderTest> {
  const { store, drop } = await openBackend(backend);
  const tmp = mkdtempSync(join(tmpdir(), "pdpp-bench-relevance-decoy-"));
  try {
    const ownerToken = newToken("owner");
    await store.putOwnerToken(hashToken(ownerToken));
    const app = createApp({ store, publicUrl: BASE });
    const manifest = beirManifest(collection.name);
    const started = performance.now();
    // A BEIR corpus.jsonl is imported as it is; documents of another layout are written as JSONL first.
    let corpus = collection.corpusJsonl;
    if (corpus === null) {
      corpus = join(tmp, "corpus.jsonl");
      writeJsonl(corpus, collection.docs);
    }
    const connectionId = await importJsonl(store, app, ownerToken, {
      path: corpus,
      label: collection.name,
      manifest,
    });
    const importSeconds = (performance.now() - started) / 1000;
    const decoyPath = join(tmp, "decoy.jsonl");
    writeJsonl(
      decoyPath,
      collection.docs.slice(0, DECOY_DOCS).map((d) => ({ ...d, id: `${DECOY_PREFIX}${d.id}` })),
    );

    await importJsonl(store, app, ownerToken, { path: decoyPath, label: "hidden decoy", manifest });
    const token = newToken("client");
    await store.createGrant({
      grant_id: newGrantId(),
      client_name: "relevance-bench",
      purpose: "relevance benchmark",
      created_at: new Date().toISOString(),
      expires_at: null,
      revoked_at: null,
      token_hash: hashToken(token),
      streams: [
        { stream: STREAM, connector_key: manifest.connector_key, connections: [connectionId], fields: "all" },
      ],
    });
    const headers = { authorization: `Bearer ${token}` };
    const idOf = (hit: { record_id: string }) => decodeRecordId(hit.record_id)[0];
    const search = async (q: string, limit: number): Promise<SearchAnswer> => {
      const ids: string[] = [];
      const outside: string[] = [];
      const t0 = performance.now();
      let cursor: string | null = null;
      do {
        const params = new URLSearchParams(
          cursor ? { q, limit: String(limit), cursor } : { q, limit: String(limit) },
        );
        const response = await app.fetch(new Request(`${BASE}/v1/search?${params}`, { headers }));
        if (response.status !== 200) {
          const error = `${response.status} ${(await response.text()).slice(0, 200)}`;
          return { ids, ms: performance.now() - t0, error, outside };
        }
        const body = (await response.json()) as {
          data: { record_id: string; connection_id: string; stream: string }[];
          has_more: boolean;
          next_cursor: string | null;
        };
        for (const hit of body.data) {
          const id = idOf(hit);
          if (hit.connection_id !== connectionId || hit.stream !== STREAM || id.startsWith(DECOY_PREFIX))
            outside.push(`${hit.connection_id}/${hit.stream}:${hit.record_id}`);
          ids.push(id);
        }
        cursor = body.has_more && ids.length < limit ? body.next_cursor : null;
      } while (cursor);
      return { ids: ids.slice(0, limit), ms: performance.now() - t0, outside };
    };
    const rs = new InProcessRsClient((request, env) => app.fetch(request, env), token, BASE);
    const server = createPdppMcpServer({ rs, providerUrl: BASE });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "relevance-bench", version: "1.0.0" });
    await server.connect(serverSide);
    await client.connect(clientSide);
    await client.listTools(); // the SDK then validates every result against the tool's output schema
    const mcpSearch = async (q: string, limit: number) => {
      const result = await client.callTool({ name: "search", arguments: { query: q, limit } });
      if (result.isError) {
        const text = (result.content as { text?: string }[])[0]?.text ?? "";
        return { ids: [], error: text.slice(0, 200) };
      }
      const rows = (result.structuredContent as { results: { record_id: string }[] }).results;
      return { ids: rows.map(idOf) };
    };
    return {
      backend,
      importSeconds,
      search,
      mcpSearch,
      close: async () => {
        await client.close();
        await store.close();
        await drop();
      },
    };
  } catch (error) {
    await store.close();
    await drop();
    throw error;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
