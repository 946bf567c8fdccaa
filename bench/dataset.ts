// Deterministic benchmark dataset: mail over two connections of one connector, chats, transactions,
// and a few huge text fields, written straight through Store.applyBatch in large batches.
import { hashToken, newGrantId, newToken } from "../src/core/ids.js";
import type { Manifest } from "../src/core/manifest.js";
import type { IngestOp, Store } from "../src/store/store.js";

/** Mulberry32: tiny seeded PRNG so every run builds the same data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "invoice meeting project budget travel flight hotel dinner report quarterly review contract " +
  "renewal insurance doctor appointment school teacher garden recipe birthday party holiday " +
  "train ticket receipt subscription password security update release deploy server database " +
  "migration backup weekend concert museum library bicycle repair plumber electrician mortgage " +
  "tax refund salary bonus pension savings account transfer payment grocery pharmacy"
).split(" ");
const RARE = ["zanzibar", "quokka", "ptarmigan", "xylograph", "vellichor", "bathysphere"];
const PEOPLE = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"];

export const BENCH_MANIFESTS: Manifest[] = [
  {
    connector_key: "mbox",
    display_name: "Mail (mbox)",
    version: "1",
    streams: [
      {
        name: "messages",
        primary_key: ["message_id"],
        cursor_field: "sent_at",
        time_field: "sent_at",
        title_field: "subject",
        schema: {
          type: "object",
          properties: {
            message_id: { type: "string" },
            thread_id: { type: "string" },
            subject: { type: "string" },
            from: { type: "string" },
            labels: { type: "array", items: { type: "string" } },
            sent_at: { type: "string", format: "date-time" },
            size_bytes: { type: "integer" },
            body: { type: "string" },
          },
        },
        text_fields: ["body"],
        query: {
          search: ["subject", "from", "body"],
          exact_filters: ["from", "thread_id", "labels"],
          range_filters: { sent_at: ["gte", "gt", "lte", "lt"], size_bytes: ["gte", "lte"] },
          aggregations: { group_by: ["from", "labels"], group_by_time: ["sent_at"], sum: ["size_bytes"] },
        },
      },
    ],
  },
  {
    connector_key: "chatgpt",
    display_name: "ChatGPT",
    version: "1",
    streams: [
      {
        name: "chat_messages",
        primary_key: ["message_id"],
        cursor_field: "sent_at",
        time_field: "sent_at",
        schema: {
          type: "object",
          properties: {
            message_id: { type: "string" },
            conversation_id: { type: "string" },
            role: { type: "string" },
            sent_at: { type: "string", format: "date-time" },
            text: { type: "string" },
          },
        },
        text_fields: ["text"],
        query: {
          search: ["text"],
          exact_filters: ["role", "conversation_id"],
          range_filters: { sent_at: ["gte", "lt"] },
        },
      },
    ],
  },
  {
    connector_key: "csv.bank",
    display_name: "Bank (CSV)",
    version: "1",
    streams: [
      {
        name: "transactions",
        primary_key: ["id"],
        cursor_field: "date",
        time_field: "date",
        title_field: "merchant",
        schema: {
          type: "object",
          properties: {
            id: { type: "string" },
            date: { type: "string", format: "date-time" },
            amount: { type: "number" },
            merchant: { type: "string" },
            category: { type: "string" },
          },
        },
        query: {
          search: ["merchant", "category"],
          exact_filters: ["category", "merchant"],
          range_filters: { date: ["gte", "lt"], amount: ["gte", "lte"] },
          aggregations: { group_by: ["category"], group_by_time: ["date"], sum: ["amount"] },
        },
      },
    ],
  },
];

function sentence(rand: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    out.push(
      // Rare words stay selective: each matches about 400 records per million (≤ 1k, the spec's
      // "selective query"), whatever the body lengths.
      rand() < 0.000002 ? RARE[Math.floor(rand() * RARE.length)] : WORDS[Math.floor(rand() * WORDS.length)],
    );
  }
  return out.join(" ");
}

function textOfChars(rand: () => number, chars: number): string {
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const s = `${sentence(rand, 12)}. `;
    parts.push(s);
    length += s.length;
  }
  return parts.join("").slice(0, chars);
}

/** A client token whose grant sees every stream of the bench dataset (all connections and fields). */
export async function grantEverything(store: Store, clientName = "bench"): Promise<string> {
  const token = newToken("client");
  await store.createGrant({
    grant_id: newGrantId(),
    client_name: clientName,
    purpose: "benchmark",
    created_at: new Date().toISOString(),
    expires_at: null,
    revoked_at: null,
    token_hash: hashToken(token),
    streams: BENCH_MANIFESTS.flatMap((m) =>
      m.streams.map((s) => ({
        stream: s.name,
        connector_key: m.connector_key,
        connections: "all" as const,
        fields: "all" as const,
      })),
    ),
  });
  return token;
}

export interface DatasetInfo {
  connections: Record<string, string>; // label → connection_id
  records: number;
  hugeFieldRecordIds: string[]; // mbox messages with a 10–100 MB body, on the work connection
}

/** Writes `records` records (70% mail, 20% chat, 10% transactions) plus `hugeFields` huge bodies. */
export async function generateDataset(
  store: Store,
  options: { records: number; seed?: number; hugeFieldsMb?: number[]; onProgress?: (done: number) => void },
): Promise<DatasetInfo> {
  const rand = prng(options.seed ?? 42);
  for (const manifest of BENCH_MANIFESTS) await store.putManifest(manifest);
  const work = await store.ensureConnection("mbox", "Work mail");
  const personal = await store.ensureConnection("mbox", "Personal mail");
  const chat = await store.ensureConnection("chatgpt", "ChatGPT");
  const bank = await store.ensureConnection("csv.bank", "Checking");
  const start = Date.parse("2019-01-01T00:00:00Z");
  const span = Date.parse("2026-01-01T00:00:00Z") - start;
  const batch = 2000;
  let written = 0;
  const buffers = new Map<string, { connection: string; stream: string; ops: IngestOp[] }>();
  const flush = async (key: string) => {
    const b = buffers.get(key);
    if (!b || b.ops.length === 0) return;
    await store.applyBatch(b.connection, b.stream, b.ops);
    written += b.ops.length;
    b.ops = [];
    options.onProgress?.(written);
  };
  const push = async (connection: string, stream: string, data: Record<string, unknown>) => {
    const key = `${connection}/${stream}`;
    let b = buffers.get(key);
    if (!b) {
      b = { connection, stream, ops: [] };
      buffers.set(key, b);
    }
    b.ops.push({ op: "upsert", data });
    if (b.ops.length >= batch) await flush(key);
  };
  for (let i = 0; i < options.records; i++) {
    const at = new Date(start + Math.floor((i / options.records) * span)).toISOString();
    const r = rand();
    if (r < 0.7) {
      const from = `${PEOPLE[Math.floor(rand() * PEOPLE.length)]}@example.com`;
      const bodyChars = 1000 + Math.floor(rand() * rand() * 39_000);
      await push(rand() < 0.6 ? work.connection_id : personal.connection_id, "messages", {
        message_id: `<m${i}@bench.example>`,
        thread_id: `t${Math.floor(i / 4)}`,
        subject: sentence(rand, 6),
        from,
        labels: rand() < 0.3 ? ["INBOX", "Important"] : ["INBOX"],
        sent_at: at,
        size_bytes: bodyChars + 400,
        body: textOfChars(rand, bodyChars),
      });
    } else if (r < 0.9) {
      await push(chat.connection_id, "chat_messages", {
        message_id: `c${i}`,
        conversation_id: `conv${Math.floor(i / 10)}`,
        role: rand() < 0.5 ? "user" : "assistant",
        sent_at: at,
        text: textOfChars(rand, 200 + Math.floor(rand() * 2000)),
      });
    } else {
      await push(bank.connection_id, "transactions", {
        id: `tx${i}`,
        date: at,
        amount: Math.round((rand() * 500 - 250) * 100) / 100,
        merchant: `${WORDS[Math.floor(rand() * WORDS.length)]} shop`,
        category: WORDS[Math.floor(rand() * 8)],
      });
    }
  }
  for (const key of buffers.keys()) await flush(key);
  const hugeFieldRecordIds: string[] = [];
  for (const [index, mb] of (options.hugeFieldsMb ?? []).entries()) {
    const messageId = `<huge${index}@bench.example>`;
    await store.applyBatch(work.connection_id, "messages", [
      {
        op: "upsert",
        data: {
          message_id: messageId,
          thread_id: `huge${index}`,
          subject: `huge body ${mb} MB`,
          from: "archive@example.com",
          labels: ["INBOX"],
          sent_at: "2025-06-01T00:00:00.000Z",
          size_bytes: mb * 1_000_000,
          body: textOfChars(rand, mb * 1_000_000),
        },
      },
    ]);
    hugeFieldRecordIds.push(messageId);
  }
  return {
    connections: {
      "Work mail": work.connection_id,
      "Personal mail": personal.connection_id,
      ChatGPT: chat.connection_id,
      Checking: bank.connection_id,
    },
    records: written,
    hugeFieldRecordIds,
  };
}
