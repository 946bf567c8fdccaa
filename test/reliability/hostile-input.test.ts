// Hostile input (40-quality.md, reliability 2): every id, cursor, filter, field path, `q`, query
// string and header slot gets traversal, unicode, control characters, huge values, random bytes,
// FTS5/tsquery syntax and SQL meta-characters. Never a 5xx; always a typed 4xx or a valid 200.
import assert from "node:assert/strict";
import { test } from "node:test";
import { testBackends } from "../helpers/backends.js";
import { assertTypedAnswer } from "./fixtures/envelope.js";
import { type Harness, type HttpAnswer, openHarness } from "./fixtures/harness.js";
import { HOSTILE_VALUES, hostileFragments, SYNTAX_VALUES } from "./fixtures/hostile-values.js";
import { KnownIssueTally } from "./fixtures/known-issues.js";
import { allNotesGrant, seedNotes } from "./fixtures/notes-dataset.js";
import { createRng, seedFromEnv } from "./fixtures/prng.js";

const SEED = seedFromEnv("PDPP_HOSTILE_SEED", 4242);

/** Read slots (client token): each maps a hostile URL fragment to a request path. */
function readSlots(c: string): [string, (e: string) => string][] {
  const rec = "/v1/streams/notes/records";
  const win = `${rec}/n-0-1/field-window?field=body&connection_id=${c}`;
  const agg = "/v1/streams/notes/aggregate?metric=count";
  return [
    ["stream", (e) => `/v1/streams/${e}/records`],
    ["record_id", (e) => `${rec}/${e}?connection_id=${c}`],
    ["window record_id", (e) => `${rec}/${e}/field-window?field=body&connection_id=${c}`],
    ["window field", (e) => `${rec}/n-0-1/field-window?field=${e}&connection_id=${c}`],
    ["window q", (e) => `${win}&q=${e}`],
    ["window cursor", (e) => `${win}&cursor=${e}`],
    ["window offset", (e) => `${win}&offset_chars=${e}&limit_chars=10`],
    ["blob record_id", (e) => `${rec}/${e}/blob?field=body&connection_id=${c}`],
    ["blob field", (e) => `${rec}/n-0-1/blob?field=${e}&connection_id=${c}`],
    [
      "blob offset",
      (e) => `${rec}/n-0-1/blob?field=body&offset_bytes=${e}&limit_bytes=10&connection_id=${c}`,
    ],
    ["blob digest", (e) => `${rec}/n-0-1/blob?field=body&if_digest=${e}&connection_id=${c}`],
    ["list connection_id", (e) => `${rec}?connection_id=${e}`],
    ["list cursor", (e) => `${rec}?cursor=${e}`],
    ["filter eq", (e) => `${rec}?count=exact&filter[tag]=${e}`],
    ["filter time", (e) => `${rec}?filter[at][gte]=${e}`],
    ["filter number", (e) => `${rec}?filter[size][lte]=${e}`],
    ["filter key", (e) => `${rec}?filter[${e}]=x`],
    ["filter op", (e) => `${rec}?filter[size][${e}]=1`],
    ["fields", (e) => `${rec}?fields=${e}`],
    ["sort", (e) => `${rec}?sort=${e}`],
    ["limit", (e) => `${rec}?limit=${e}`],
    ["count", (e) => `${rec}?count=${e}`],
    ["changes_since", (e) => `${rec}?changes_since=${e}`],
    ["param name", (e) => `${rec}?${e}=1`],
    ["metric", (e) => `/v1/streams/notes/aggregate?metric=${e}`],
    ["group_by", (e) => `${agg}&group_by=${e}`],
    ["sum field", (e) => `/v1/streams/notes/aggregate?metric=sum&field=${e}`],
    ["granularity", (e) => `${agg}&group_by_time=at&granularity=${e}`],
    ["time_zone", (e) => `${agg}&group_by_time=at&granularity=month&time_zone=${e}`],
    ["search q", (e) => `/v1/search?q=${e}`],
    ["search streams", (e) => `/v1/search?q=apple&streams=${e}`],
    ["search cursor", (e) => `/v1/search?q=apple&cursor=${e}`],
    ["search connection_id", (e) => `/v1/search?q=apple&connection_id=${e}`],
    ["search filter", (e) => `/v1/search?q=apple&streams=notes&filter[tag]=${e}`],
    ["schema stream", (e) => `/v1/schema?stream=${e}`],
    ["schema view", (e) => `/v1/schema?view=${e}`],
    ["schema connection", (e) => `/v1/schema?stream=notes&view=full&connection_id=${e}`],
    ["route", (e) => `/v1/${e}`],
  ];
}

async function setup(h: Harness) {
  const connections = await seedNotes(h, 12);
  const { token } = await h.createGrant(allNotesGrant());
  return { connections, token };
}

for (const backend of testBackends()) {
  test(`hostile input on ${backend.name}: never a 5xx, always typed (seed ${SEED})`, async (t) => {
    const opened = await backend.open();
    try {
      const h = await openHarness(opened.store);
      const { connections, token } = await setup(h);
      const secrets = [token, h.ownerToken];
      const fragments = hostileFragments(createRng(SEED), 16);
      let requests = 0;
      const failures: string[] = [];
      const known = new KnownIssueTally();
      // Collects every distinct failure (known issues are counted, not failed) and carries on.
      const check = (what: () => void) => {
        try {
          what();
        } catch (error) {
          const message = (error as Error).message;
          if (!known.tolerate(message)) failures.push(message);
        }
      };
      const send = async (path: string, label: string, options: Parameters<Harness["request"]>[1] = {}) => {
        const answer = await h.request(path, { token, ...options });
        requests += 1;
        check(() => assertTypedAnswer(answer, `${label} ${path.slice(0, 300)}`, secrets));
        return answer;
      };
      for (const [slot, make] of readSlots(connections[0])) {
        await inParallel(fragments, async (f) => {
          const answer = await send(make(f.fragment), `[${slot} ${f.label}]`);
          if (answer.status >= 500) return;
          check(() => {
            if (f.syntax && (slot === "search q" || slot === "window q")) {
              assert.equal(
                answer.status,
                200,
                `${slot} must accept search syntax ${f.label}: ${answer.text.slice(0, 300)}`,
              );
            }
            if (f.syntax && (slot === "filter eq" || slot === "search q") && answer.status === 200) {
              // SQL meta-characters are values, never SQL: they match nothing in this dataset.
              const matched = slot === "filter eq" ? answer.json.meta.count : answer.json.data.length;
              // (Search words are optional: a number in a fragment, `1=1`, is a word records hold.)
              const words = slot === "search q" ? /apple|banana|note|body|\d/i : /apple|banana|note|body/i;
              if (!words.test(decodeURIComponent(f.fragment))) {
                assert.equal(matched, 0, `${slot} ${f.label} matched ${matched}`);
              }
            }
          });
        });
      }
      await ownerSlots(h, connections[0], fragments, send);
      await headerSlots(token, send);
      await limitSlots(send);
      for (const line of known.lines()) {
        t.diagnostic(line);
        console.log(`hostile-input ${backend.name}: ${line}`);
      }
      t.diagnostic(`${backend.name}: ${requests} hostile requests (seed ${SEED})`);
      console.log(`hostile-input ${backend.name}: ${requests} requests, ${failures.length} failures`);
      const distinct = [...new Set(failures.map((f) => f.slice(0, 400)))];
      assert.equal(failures.length, 0, `${failures.length} failures:\n${distinct.slice(0, 15).join("\n")}`);
    } finally {
      await opened.cleanup();
    }
  });

  test(`hostile primary keys round-trip by record_id on ${backend.name}`, async (t) => {
    const opened = await backend.open();
    try {
      const h = await openHarness(opened.store);
      const [conn] = await seedNotes(h, 0);
      const ids = [...new Set(HOSTILE_VALUES.filter((v) => v.length > 0 && v.length <= 600))];
      const answer = await h.ingest(
        conn,
        "notes",
        ids.map((id, i) => ({
          op: "upsert",
          data: { id, title: `t${i}`, body: id, at: "2024-01-01T00:00:00Z" },
        })),
      );
      const rejected = answer.json.rejected?.length ?? 0;
      const stored: { record_id: string; data: { id: string } }[] = [];
      let cursor: string | null = null;
      do {
        const page: HttpAnswer = await h.request(
          `/v1/streams/notes/records?limit=100&connection_id=${conn}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        );
        assert.equal(page.status, 200, page.text);
        stored.push(...page.json.data);
        cursor = page.json.has_more ? page.json.next_cursor : null;
      } while (cursor);
      assert.equal(stored.length + rejected, ids.length);
      const known = new KnownIssueTally();
      for (const rec of stored) {
        // Lone surrogates cannot survive UTF-8 storage: known issue K4 until ingest rejects them.
        if (/[\ud800-\udfff]/u.test(rec.data.id) && known.tolerate("lone surrogate in primary key")) continue;
        // Accepted at ingest but longer than the 512-char safe-name limit of reads: known issue K5.
        if (rec.record_id.length > 512 && known.tolerate("record_id over 512 accepted at ingest")) continue;
        assert.doesNotMatch(
          rec.record_id,
          // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not appear
          /[/\\\s\u0000-\u001f]/u,
          `record_id must be one safe token: ${rec.record_id}`,
        );
        const path = `/v1/streams/notes/records/${encodeURIComponent(rec.record_id)}?connection_id=${conn}`;
        const one = await h.request(path);
        assert.equal(one.status, 200, `${path} → ${one.text.slice(0, 200)}`);
        assert.equal(one.json.data.id, rec.data.id);
        const win = await h.request(
          `/v1/streams/notes/records/${encodeURIComponent(rec.record_id)}/field-window?field=body&connection_id=${conn}`,
        );
        assert.equal(win.status, 200, win.text.slice(0, 200));
        assert.equal(win.json.window.text, rec.data.id);
      }
      for (const line of known.lines()) {
        t.diagnostic(line);
        console.log(`hostile-input round-trip ${backend.name}: ${line}`);
      }
    } finally {
      await opened.cleanup();
    }
  });
}

/** Run `fn` over `items`, eight at a time (the app is in-process; Postgres is latency-bound). */
async function inParallel<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += 8) await Promise.all(items.slice(i, i + 8).map(fn));
}

type Send = (path: string, label: string, options?: Parameters<Harness["request"]>[1]) => Promise<HttpAnswer>;

async function ownerSlots(
  h: Harness,
  conn: string,
  fragments: ReturnType<typeof hostileFragments>,
  send: Send,
) {
  const owner = { token: h.ownerToken };
  const json = { "content-type": "application/json" };
  const line = `${JSON.stringify({ op: "upsert", data: { id: "x", title: "x" } })}\n`;
  await inParallel(fragments, async (f) => {
    const t = `[owner ${f.label}]`;
    await send(`/v1/owner/connections/${f.fragment}`, t, { ...owner, method: "DELETE" });
    await send(`/v1/owner/connections/${f.fragment}/streams/notes/records`, t, {
      ...owner,
      method: "POST",
      body: line,
    });
    await send(`/v1/owner/connections/${conn}/streams/${f.fragment}/records`, t, {
      ...owner,
      method: "POST",
      body: line,
    });
    await send(`/v1/owner/grants/${f.fragment}/revoke`, t, {
      ...owner,
      method: "POST",
      body: "{}",
      headers: json,
    });
    await send(`/v1/owner/access-log?limit=${f.fragment}`, t, owner);
  });
  await inParallel(HOSTILE_VALUES, async (v) => {
    const t = `[owner body ${JSON.stringify(v.slice(0, 40))}]`;
    const body = (value: unknown) => ({
      ...owner,
      method: "POST",
      body: JSON.stringify(value),
      headers: json,
    });
    await send("/v1/owner/connections", t, body({ connector_key: v, display_name: "x" }));
    await send(
      "/v1/owner/connectors",
      t,
      body({ connector_key: v, display_name: v, version: "1", streams: [] }),
    );
    await send(
      "/v1/owner/grants",
      t,
      body({ client_name: v, purpose: v, streams: [{ stream: v, connector_key: "notes" }] }),
    );
    await send("/v1/owner/grants", t, body({ client_name: "x", purpose: "x", expires_at: v, streams: [] }));
    const lines = [
      v,
      JSON.stringify({ op: v, data: {} }),
      JSON.stringify({ op: "upsert", data: { id: "h", at: v, size: v } }),
    ];
    await send(`/v1/owner/connections/${conn}/streams/notes/records`, t, {
      ...owner,
      method: "POST",
      body: lines.join("\n"),
    });
  });
  for (const raw of [
    "{",
    "[",
    "null",
    "1",
    '"x"',
    "{}".repeat(10_000),
    `${"[".repeat(5000)}${"]".repeat(5000)}`,
  ]) {
    await send("/v1/owner/grants", `[owner raw body ${raw.slice(0, 20)}]`, {
      ...owner,
      method: "POST",
      body: raw,
      headers: json,
    });
    await send("/v1/owner/connectors", `[owner raw body ${raw.slice(0, 20)}]`, {
      ...owner,
      method: "POST",
      body: raw,
      headers: json,
    });
  }
}

async function headerSlots(token: string, send: Send) {
  const auths = [
    "Basic abc",
    "Bearer",
    "Bearer ",
    `bearer ${token}`,
    `Bearer  ${token}`,
    `Bearer ${token} x`,
    `Bearer ${token}x`,
    `Bearer ${token.slice(0, -1)}`,
    "Bearer pdpp_ct_",
    "Bearer pdpp_ot_",
    "Bearer ../../etc",
    `Bearer ${"A".repeat(9000)}`,
    "Bearer %00",
    "Bearer ' OR 1=1 --",
    `Token ${token}`,
  ];
  for (const auth of auths) {
    const answer = await send("/v1/schema", `[authorization ${auth.slice(0, 30)}]`, {
      token: null,
      headers: { authorization: auth },
    });
    // Case-insensitive scheme and extra spaces are lenient, not unsafe; anything else is a 401.
    if (auth !== `bearer ${token}` && auth !== `Bearer  ${token}`)
      assert.equal(answer.status, 401, `auth ${auth.slice(0, 30)} → ${answer.status}`);
  }
  const hostile = await send("/v1/schema", "[host]", { headers: { host: "evil.example" } });
  assert.equal(hostile.status, 403);
  assert.equal(hostile.json.error.code, "invalid_host");
  const origin = await send("/v1/schema", "[origin]", { headers: { origin: "http://evil.example" } });
  assert.equal(origin.status, 403);
  for (const v of HOSTILE_VALUES) {
    let headers: Record<string, string>;
    try {
      headers = { "x-pdpp-tool": v, "content-type": v, accept: v, "x-request-id": v };
      new Headers(headers);
    } catch {
      continue; // not representable as a header value
    }
    await send("/v1/schema", `[headers ${JSON.stringify(v.slice(0, 30))}]`, { token, headers });
  }
}

async function limitSlots(send: Send) {
  const longUrl = await send(`/v1/search?q=${"a".repeat(17 * 1024)}`, "[url > 16 KiB]");
  assert.ok(longUrl.status === 414 || longUrl.status === 400, `long URL → ${longUrl.status}`);
  assert.equal((await send(`/v1/search?q=${"b".repeat(1001)}`, "[q 1001]")).status, 400);
  assert.equal((await send(`/v1/search?q=${"b ".repeat(499)}c`, "[q 999]")).status, 200);
  const many = Array.from({ length: 65 }, () => "streams=notes").join("&");
  assert.equal((await send(`/v1/search?q=apple&${many}`, "[65 params]")).status, 400);
  const filters = Array.from({ length: 17 }, (_, i) => `filter[f${i}]=1`).join("&");
  assert.equal((await send(`/v1/streams/notes/records?${filters}`, "[17 filters]")).status, 400);
  for (const q of SYNTAX_VALUES) {
    const answer = await send(
      `/v1/search?q=${encodeURIComponent(`apple ${q}`)}&streams=notes`,
      `[q apple+${q}]`,
    );
    assert.equal(answer.status, 200, `q apple ${q}: ${answer.text.slice(0, 200)}`);
  }
}
