// The access log as the owner reads it (both backends): one hosted tool call is one row, even when
// the search tool re-reads at smaller limits to fit its result budget, and every MCP row names its
// stream (qualified names, and the streams a search across the grant answered from).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { testBackends } from "../helpers/backends.js";
import { MCP_URL, openOAuthWorld } from "../oauth/oauth-world.js";

for (const backend of testBackends()) {
  describe(`hosted MCP access-log rows (${backend.name})`, () => {
    it("a search retried at smaller limits is one row; qualified and multi-stream reads name their streams", async () => {
      const world = await openOAuthWorld(backend);
      try {
        const { fx } = world;
        // 100 mails whose long subjects and bodies overflow the 40,000-character result at limit 100.
        const wordy = Array.from({ length: 100 }, (_, i) => ({
          message_id: `<wordy${i}@mail.example>`,
          thread_id: "w",
          subject: `zebra crossing ${i} ${"with a very long subject line ".repeat(8)}`,
          from: "carol@example.com",
          labels: ["inbox"],
          sent_at: "2024-06-01T12:00:00Z",
          body: `zebra ${"striped animals of the savanna ".repeat(40)}`,
          size_bytes: 1,
          starred: false,
          secret_note: "n",
          sender: { email: "carol@example.com", name: "C" },
        }));
        const ingested = await fx.call(`/v1/owner/connections/${fx.mailA}/streams/messages/records`, {
          method: "POST",
          body: wordy.map((data) => JSON.stringify({ op: "upsert", data })).join("\n"),
        });
        assert.equal(ingested.status, 200, ingested.text);
        const { token, grant_id } = await fx.grant([
          { stream: "messages", connector_key: "mail", connections: "all", fields: "all" },
          { stream: "messages", connector_key: "chat", connections: "all", fields: "all" },
        ]);
        let id = 0;
        const tool = async (name: string, args: Record<string, unknown>) => {
          const res = await world.fetch(MCP_URL, {
            method: "POST",
            headers: {
              authorization: `Bearer ${token}`,
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
            },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: ++id,
              method: "tools/call",
              params: { name, arguments: args },
            }),
          });
          assert.equal(res.status, 200);
          // biome-ignore lint/suspicious/noExplicitAny: a JSON-RPC answer inspected dynamically
          return ((await res.json()) as any).result;
        };

        const found = await tool("search", { query: "zebra", limit: 100 });
        const warnings = found.structuredContent.data.meta.warnings as { code: string }[];
        assert.ok(
          warnings.some((w) => w.code === "limit_reduced"),
          "the tool had to re-read at a smaller limit (else this test proves nothing)",
        );
        const shown = (found.structuredContent.results as unknown[]).length;
        let rows = await fx.store.listAccessLog({ limit: 100, grantId: grant_id });
        assert.deepEqual(
          rows.map((r) => [r.route, r.stream, r.record_count]),
          [["mcp:search", "mail:messages", shown]],
        );

        await tool("query_records", { stream: "chat:messages", limit: 2 });
        await tool("search", { query: "quarterly", limit: 50 });
        rows = await fx.store.listAccessLog({ limit: 100, grantId: grant_id });
        assert.deepEqual(
          rows.slice(0, 2).map((r) => [r.route, r.stream?.split(", ").sort().join(", ")]),
          [
            ["mcp:search", "chat:messages, mail:messages"],
            ["mcp:query_records", "chat:messages"],
          ],
        );
      } finally {
        await world.cleanup();
      }
    });
  });
}
