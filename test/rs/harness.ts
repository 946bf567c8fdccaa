// HTTP test harness for the RS: builds the app over a real store, loads the fixture data through
// the owner endpoints, and issues requests with `app.request()`.
import assert from "node:assert/strict";
import type { Grant } from "../../src/core/grant.js";
import { hashToken, newToken } from "../../src/core/ids.js";
import { type AppOptions, createApp } from "../../src/rs/app.js";
import type { Store } from "../../src/store/store.js";
import type { TestBackend } from "../helpers/backends.js";
import { CHAT_MANIFEST, MAIL_MANIFEST } from "./fixture-manifests.js";

export const SENTINEL = "SENTINEL_7f3a";
export const LONG_BODY_CHARS = 20_000;

export interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test responses are inspected dynamically
  json: any;
  text: string;
}

export interface Fixture {
  store: Store;
  app: ReturnType<typeof createApp>;
  owner: string;
  mailA: string;
  mailB: string;
  chat: string;
  call(
    path: string,
    options?: { token?: string | null; method?: string; body?: string; headers?: Record<string, string> },
  ): Promise<Reply>;
  grant(
    streams: Grant["streams"],
    options?: { expires_at?: string | null },
  ): Promise<{ token: string; grant_id: string }>;
}

export function longBody(): string {
  // Code points beyond the BMP make sure windows count code points, not UTF-16 units.
  const unit = "abcdefghij😀"; // 11 code points
  let text = "";
  while ([...text].length < LONG_BODY_CHARS - 100) text += unit;
  return `${text}NEEDLE here${"z".repeat(LONG_BODY_CHARS - [...text].length - 11)}`;
}

/** Mail messages: day `d` of 2024 at noon; two connections share timestamps to exercise ties. */
function mailRecords(prefix: string, count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => ({
    message_id: `<${prefix}${i}/x@mail.example>`,
    thread_id: `t${i % 3}`,
    subject: `${prefix} subject ${i} quarterly report`,
    from: i % 2 === 0 ? "alice@example.com" : "bob@example.com",
    labels: i % 4 === 0 ? ["inbox", "work"] : ["inbox"],
    sent_at: `2024-${String((i % 12) + 1).padStart(2, "0")}-15T12:00:00Z`,
    body: i === 0 ? longBody() : `Body of ${prefix} ${i}. Budget planning notes.`,
    size_bytes: 100 * (i + 1),
    starred: i % 5 === 0,
    secret_note: `${SENTINEL} note ${i}`,
    sender: { email: i % 2 === 0 ? "alice@example.com" : "bob@example.com", name: "X" },
  }));
}

function chatRecords(): Record<string, unknown>[] {
  return Array.from({ length: 6 }, (_, i) => ({
    id: `c${i}`,
    conversation_id: `conv${i % 2}`,
    role: i % 2 === 0 ? "user" : "assistant",
    text: `chat message ${i} about the quarterly budget`,
    sent_at: `2024-0${(i % 6) + 1}-15T12:00:00Z`,
  }));
}

export const ndjson = (records: Record<string, unknown>[], op = "upsert") =>
  records.map((data) => JSON.stringify({ op, data })).join("\n");

export async function setupFixture(store: Store, options: Partial<AppOptions> = {}): Promise<Fixture> {
  const app = createApp({ store, publicUrl: "http://127.0.0.1:7662", ...options });
  const owner = newToken("owner");
  await store.putOwnerToken(hashToken(owner));
  const call: Fixture["call"] = async (path, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const token = o.token === undefined ? owner : o.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const res = await app.request(path, { method: o.method ?? "GET", headers, body: o.body });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    return { status: res.status, headers: res.headers, json, text };
  };
  for (const m of [MAIL_MANIFEST, CHAT_MANIFEST]) {
    const r = await call("/v1/owner/connectors", { method: "POST", body: JSON.stringify(m) });
    assert.equal(r.status, 200, r.text);
  }
  const connect = async (connector_key: string, display_name: string) => {
    const r = await call("/v1/owner/connections", {
      method: "POST",
      body: JSON.stringify({ connector_key, display_name }),
    });
    assert.equal(r.status, 201, r.text);
    return r.json.connection_id as string;
  };
  const mailA = await connect("mail", "Work mail");
  const mailB = await connect("mail", "Home mail");
  const chat = await connect("chat", "Chat");
  const ingest = async (conn: string, stream: string, records: Record<string, unknown>[]) => {
    const r = await call(`/v1/owner/connections/${conn}/streams/${stream}/records`, {
      method: "POST",
      body: ndjson(records),
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.added, records.length, r.text);
  };
  await ingest(mailA, "messages", mailRecords("a", 12));
  await ingest(mailB, "messages", mailRecords("b", 9));
  await ingest(mailA, "contacts", [{ email: "alice@example.com", name: "Alice" }]);
  await ingest(chat, "messages", chatRecords());
  const grant: Fixture["grant"] = async (streams, go = {}) => {
    const r = await call("/v1/owner/grants", {
      method: "POST",
      body: JSON.stringify({ client_name: "test-agent", purpose: "tests", streams, ...go }),
    });
    assert.equal(r.status, 201, r.text);
    return { token: r.json.token, grant_id: r.json.grant_id };
  };
  return { store, app, owner, mailA, mailB, chat, call, grant };
}

/** Open a fresh store on `backend` with the fixture loaded; `cleanup` closes and removes it. */
export async function openFixture(
  backend: TestBackend,
  options: Partial<AppOptions> = {},
): Promise<{ fx: Fixture; cleanup: () => Promise<void> }> {
  const opened = await backend.open();
  return { fx: await setupFixture(opened.store, options), cleanup: opened.cleanup };
}

/** Assert an error envelope's status and code (and that it carries a request id). */
export function assertError(reply: Reply, status: number, code: string): void {
  assert.equal(reply.status, status, reply.text);
  assert.equal(reply.json?.error?.code, code, reply.text);
  assert.match(reply.json.error.request_id, /^req_[0-9a-f]{16}$/);
  assert.equal(reply.headers.get("request-id"), reply.json.error.request_id);
}
