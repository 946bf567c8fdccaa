// Issue 20 items 1–3 over real transports: hosted /mcp (SDK Streamable HTTP client) and a spawned
// `pdpp mcp --store` (stdio) page a 2,550-stream index and a 400-field stream's field list, and
// reach every field of a 400-field record, from the text alone.
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Store } from "../../src/store/store.js";
import { serveWorld } from "./fixtures/served.js";
import { loadGrant, manyStreams, pageSchema, wideManifest, wideRecord } from "./fixtures/wide.js";
import {
  assertEveryNameOnce,
  assertIndexComplete,
  assertWideRecordPaths,
  fieldNames,
  fieldsInText,
} from "./fixtures/wide-checks.js";
import { openTempStore, type World } from "./fixtures/world.js";

describe("large grants over real transports (HTTP and stdio)", () => {
  let store: Store;
  let dir: string;
  let token: string;
  let names: string[];
  let rowId: string;
  let served: Awaited<ReturnType<typeof serveWorld>>;
  before(async () => {
    ({ store, dir } = await openTempStore());
    const manifests = manyStreams(50, 51);
    names = manifests.flatMap((m) => m.streams.map((s) => s.name));
    token = await loadGrant(store, { manifests: [...manifests, wideManifest()] });
    names.push("rows");
    rowId = `${(await store.ensureConnection("wide", "Main")).connection_id}/rows:r1`;
    await store.applyBatch(rowId.split("/")[0], "rows", [{ op: "upsert", data: wideRecord("r1") }]);
    served = await serveWorld({ store } as World);
  });
  after(async () => {
    await served.close();
    await store.close();
  });

  test("1, 2, 3: hosted /mcp: a text-only client pages the whole index, a wide field list and record", async () => {
    const client = new SdkClient({ name: "wide-http", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      await assertIndexComplete(client, names);
      const fields = await pageSchema(client, {
        mode: "text",
        args: { stream: "rows", detail: "full" },
        collect: (r) => fieldsInText(r.text),
      });
      assertEveryNameOnce(fields, fieldNames());
      await assertWideRecordPaths(client, rowId);
    } finally {
      await client.close();
    }
  });

  test("1, 2, 3: stdio (pdpp mcp --store): the same pages", async () => {
    const client = new SdkClient({ name: "wide-stdio", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(import.meta.dirname, "..", "..", "bin", "pdpp.js"), "mcp", "--store", dir],
        env: { PDPP_TOKEN: token },
        stderr: "pipe",
      }),
    );
    try {
      await assertIndexComplete(client, names);
      const fields = await pageSchema(client, {
        mode: "text",
        args: { stream: "rows" },
        collect: (r) => fieldsInText(r.text),
      });
      assertEveryNameOnce(fields, fieldNames());
      await assertWideRecordPaths(client, rowId);
    } finally {
      await client.close();
    }
  });
});
