// RS HTTP: owner endpoints — connectors, connections, NDJSON ingest, grants, access log, body
// limits — per backend.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../helpers/backends.js";
import { chunkedUpload } from "../helpers/chunked-upload.js";
import { CHAT_MANIFEST } from "./fixture-manifests.js";
import { assertError, type Fixture, ndjson, openFixture } from "./harness.js";

for (const backend of testBackends()) {
  describe(`rs owner endpoints (${backend.name})`, () => {
    let fx: Fixture;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ fx, cleanup } = await openFixture(backend));
    });
    after(async () => cleanup());

    it("registers, replaces and lists connectors; invalid manifests are 422", async () => {
      const replaced = await fx.call("/v1/owner/connectors", {
        method: "POST",
        body: JSON.stringify({ ...CHAT_MANIFEST, version: "2" }),
      });
      assert.deepEqual(replaced.json, {
        object: "connector",
        connector_key: "chat",
        display_name: "Chat",
        version: "2",
        streams: ["messages"],
      });
      const list = await fx.call("/v1/owner/connectors");
      assert.deepEqual(
        list.json.data
          .map((m: { connector_key: string; version: string }) => [m.connector_key, m.version])
          .sort(),
        [
          ["chat", "2"],
          ["mail", "1"],
        ],
      );
      const bad = await fx.call("/v1/owner/connectors", {
        method: "POST",
        body: JSON.stringify({ ...CHAT_MANIFEST, extra: 1 }),
      });
      assertError(bad, 422, "manifest_invalid");
      assert.match(bad.json.error.message, /extra/);
      assertError(
        await fx.call("/v1/owner/connectors", { method: "POST", body: "{not json" }),
        400,
        "invalid_request",
      );
    });

    it("manages connections; deleting one removes its records", async () => {
      const again = await fx.call("/v1/owner/connections", {
        method: "POST",
        body: JSON.stringify({ connector_key: "mail", display_name: "Home mail" }),
      });
      assert.equal(again.json.connection_id, fx.mailB);
      assertError(
        await fx.call("/v1/owner/connections", {
          method: "POST",
          body: JSON.stringify({ connector_key: "nope", display_name: "x" }),
        }),
        404,
        "connector_not_found",
      );
      const badBody = await fx.call("/v1/owner/connections", {
        method: "POST",
        body: JSON.stringify({ connector_key: "mail" }),
      });
      assertError(badBody, 400, "invalid_request");
      assert.equal(badBody.json.error.param, "display_name");
      const temp = await fx.call("/v1/owner/connections", {
        method: "POST",
        body: JSON.stringify({ connector_key: "chat", display_name: "Temp" }),
      });
      const id = temp.json.connection_id;
      await fx.call(`/v1/owner/connections/${id}/streams/messages/records`, {
        method: "POST",
        body: ndjson([{ id: "t1", role: "user", text: "temp", sent_at: "2024-01-01T00:00:00Z" }]),
      });
      const list = await fx.call("/v1/owner/connections");
      assert.equal(list.json.data.length, 4);
      const count = async () =>
        (await fx.call("/v1/streams/messages/aggregate?metric=count")).json.filtered_record_count as number;
      const before = await count();
      const del = await fx.call(`/v1/owner/connections/${id}`, { method: "DELETE" });
      assert.deepEqual(del.json, { object: "connection", connection_id: id, deleted: true });
      assert.equal(await count(), before - 1, "the connection's record is gone");
      // The same label yields the same connection id again, and it starts empty.
      const recreated = await fx.call("/v1/owner/connections", {
        method: "POST",
        body: JSON.stringify({ connector_key: "chat", display_name: "Temp" }),
      });
      const after = await fx.call(
        `/v1/streams/messages/records?connection_id=${recreated.json.connection_id}&count=exact`,
      );
      assert.equal(after.json.meta.count, 0);
      await fx.call(`/v1/owner/connections/${recreated.json.connection_id}`, { method: "DELETE" });
      assertError(
        await fx.call(`/v1/owner/connections/${id}`, { method: "DELETE" }),
        404,
        "connection_not_found",
      );
      assertError(
        await fx.call(`/v1/streams/messages/records?connection_id=${id}`),
        404,
        "connection_not_found",
      );
      assertError(
        await fx.call("/v1/owner/connections/..%2F..", { method: "DELETE" }),
        404,
        "connection_not_found",
      );
    });

    it("ingests NDJSON, reporting rejected lines by number", async () => {
      const body = [
        JSON.stringify({
          op: "upsert",
          data: { id: "n1", role: "user", text: "one", sent_at: "2024-02-01T00:00:00Z" },
        }),
        "{broken json",
        "",
        JSON.stringify({ op: "merge", data: {} }),
        JSON.stringify({ op: "upsert", data: [1] }),
        JSON.stringify({ op: "upsert", data: { role: "no primary key" } }),
        JSON.stringify({
          op: "upsert",
          data: { id: "n2", role: "user", text: "two", sent_at: "2024-02-02T00:00:00Z" },
          x: 1,
        }),
        JSON.stringify({
          op: "upsert",
          data: { id: "n3", role: "user", text: "three", sent_at: "2024-02-03T00:00:00Z" },
        }),
      ].join("\r\n");
      const r = await fx.call(`/v1/owner/connections/${fx.chat}/streams/messages/records`, {
        method: "POST",
        body,
      });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.added, 2);
      assert.equal(r.json.rejected_count, 5);
      assert.deepEqual(
        r.json.rejected.map((x: { line: number }) => x.line),
        [2, 4, 5, 6, 7],
      );
      assert.equal(r.json.rejected[0].reason, "not valid JSON");
      const same = await fx.call(`/v1/owner/connections/${fx.chat}/streams/messages/records`, {
        method: "POST",
        body,
      });
      assert.equal(same.json.unchanged, 2);
      assert.equal(same.json.added, 0);
      assertError(
        await fx.call(`/v1/owner/connections/${fx.chat}/streams/contacts/records`, {
          method: "POST",
          body: "",
        }),
        404,
        "stream_not_found",
      );
      assertError(
        await fx.call("/v1/owner/connections/cin_ffffffffffff/streams/messages/records", {
          method: "POST",
          body: "",
        }),
        404,
        "connection_not_found",
      );
    });

    it("refuses bodies past the limits with 413 payload_too_large naming the limit", async () => {
      const huge = "x".repeat(64 * 1024 * 1024 + 1);
      const r = await fx.call(`/v1/owner/connections/${fx.chat}/streams/messages/records`, {
        method: "POST",
        body: huge,
      });
      assertError(r, 413, "payload_too_large");
      assert.match(r.json.error.message, /64 MiB/);
      const g = await fx.call("/v1/owner/grants", { method: "POST", body: huge.slice(0, 9 * 1024 * 1024) });
      assertError(g, 413, "payload_too_large");
      assert.match(g.json.error.message, /8 MiB/);
    });

    it("cuts a chunked NDJSON upload off at 64 MiB while it streams, without buffering the rest", async () => {
      const upload = chunkedUpload({ chunks: 96, chunkBytes: 1024 * 1024 });
      const res = await fx.app.request(`/v1/owner/connections/${fx.chat}/streams/messages/records`, {
        method: "POST",
        headers: { authorization: `Bearer ${fx.owner}` },
        body: upload.stream,
        duplex: "half",
      } as RequestInit);
      const json = (await res.json()) as { error: { code: string; message: string } };
      assert.equal(res.status, 413);
      assert.equal(json.error.code, "payload_too_large");
      assert.match(json.error.message, /64 MiB/);
      assert.equal(upload.cancelled(), true);
      assert.ok(upload.pulled() <= 66 * 1024 * 1024, `read ${upload.pulled()} bytes of 96 MiB`);
    });

    it("creates grants (token shown once), lists, gets and revokes them", async () => {
      const created = await fx.call("/v1/owner/grants", {
        method: "POST",
        body: JSON.stringify({
          client_name: "claude",
          streams: [
            {
              stream: "messages",
              connector_key: "mail",
              connections: [fx.mailA],
              fields: ["subject"],
              time_range: { since: "2024-01-01" },
            },
          ],
        }),
      });
      assert.equal(created.status, 201, created.text);
      assert.match(created.json.token, /^pdpp_ct_[A-Za-z0-9_-]{43}$/);
      assert.match(created.json.grant_id, /^grt_[0-9a-f]{16}$/);
      assert.deepEqual(created.json.streams, [
        {
          stream: "messages",
          connector_key: "mail",
          connections: [fx.mailA],
          fields: ["subject"],
          time_range: { since: "2024-01-01T00:00:00.000Z", until: null },
        },
      ]);
      assert.equal(created.json.token_hash, undefined);
      const list = await fx.call("/v1/owner/grants");
      assert.ok(list.json.data.some((g: { grant_id: string }) => g.grant_id === created.json.grant_id));
      assert.ok(!list.text.includes(created.json.token));
      assert.ok(!list.text.includes("token_hash"));
      const one = await fx.call(`/v1/owner/grants/${created.json.grant_id}`);
      assert.equal(one.json.client_name, "claude");
      assertError(
        await fx.call("/v1/owner/grants/grt_0000000000000000/revoke", { method: "POST" }),
        404,
        "grant_not_found",
      );
      assertError(await fx.call("/v1/owner/grants/bogus/revoke", { method: "POST" }), 404, "grant_not_found");
      const post = (streams: unknown) =>
        fx.call("/v1/owner/grants", { method: "POST", body: JSON.stringify({ client_name: "x", streams }) });
      assertError(await post([{ stream: "nosuch", connector_key: "mail" }]), 404, "stream_not_found");
      assertError(await post([{ stream: "messages", connector_key: "nope" }]), 404, "connector_not_found");
      assertError(
        await post([{ stream: "messages", connector_key: "mail", connections: [fx.chat] }]),
        404,
        "connection_not_found",
      );
      assertError(
        await post([{ stream: "messages", connector_key: "mail", fields: ["ghost"] }]),
        400,
        "invalid_request",
      );
      assertError(
        await post([
          { stream: "messages", connector_key: "mail" },
          { stream: "messages", connector_key: "mail" },
        ]),
        400,
        "invalid_request",
      );
      assertError(
        await post([
          {
            stream: "messages",
            connector_key: "mail",
            time_range: { since: "2024-02-01", until: "2024-01-01" },
          },
        ]),
        400,
        "invalid_request",
      );
      assertError(
        await post([{ stream: "messages", connector_key: "mail", extra: true }]),
        400,
        "invalid_request",
      );
      assertError(await post([]), 400, "invalid_request");
    });

    it("logs each data read with route or MCP tool, grant, stream, count, bytes and status", async () => {
      const { token, grant_id } = await fx.grant([
        { stream: "messages", connector_key: "mail", connections: [fx.mailA], fields: "all" },
      ]);
      const list = await fx.call("/v1/streams/messages/records?limit=3", { token });
      const one = await fx.call(`/v1/streams/messages/records?limit=1&connection_id=${fx.mailA}`, { token });
      // A client's own x-pdpp-tool header is never trusted: only the in-process adapter labels (8.9).
      await fx.call("/v1/search?q=quarterly&limit=2", { token, headers: { "x-pdpp-tool": "search" } });
      await fx.call("/v1/streams/contacts/records", { token });
      const log = await fx.call(`/v1/owner/access-log?grant_id=${grant_id}`);
      assert.equal(log.status, 200, log.text);
      const entries: Record<string, unknown>[] = log.json.data;
      // Entries may share a millisecond; compare them as a set.
      const rows = entries
        .map((e) => [e.route, e.grant_id, e.client_name, e.stream, e.connection_id, e.record_count, e.status])
        .sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
      assert.deepEqual(rows, [
        // A search across the grant logs the streams its answer came from.
        ["GET /v1/search", grant_id, "test-agent", "mail:messages", null, 2, 200],
        ["GET /v1/streams/:stream/records", grant_id, "test-agent", "contacts", null, 0, 404],
        ["GET /v1/streams/:stream/records", grant_id, "test-agent", "messages", fx.mailA, 1, 200],
        ["GET /v1/streams/:stream/records", grant_id, "test-agent", "messages", null, 3, 200],
      ]);
      for (const e of entries) assert.match(String(e.at), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.equal(entries.find((e) => e.connection_id === fx.mailA)?.bytes, Buffer.byteLength(one.text));
      assert.equal(
        entries.find((e) => e.stream === "messages" && e.connection_id === null)?.bytes,
        Buffer.byteLength(list.text),
      );
      assert.equal(entries.find((e) => e.status === 404)?.bytes, 0);
      assert.ok(!log.text.includes(token));
      assertError(await fx.call("/v1/owner/access-log?grant_id=nope"), 400, "invalid_request");
    });
  });
}
