// Deterministic fixtures of the store contract suite: a `messages` stream over two connections,
// plus scope helpers and an in-test oracle of what each record looks like.
import type { StreamScope } from "../../../src/core/grant.js";
import type { Manifest, StreamDef } from "../../../src/core/manifest.js";
import type { Store } from "../../../src/store/store.js";
import type { OpenedStore, TestBackend } from "../../helpers/backends.js";

export const CONNECTOR = "testmail";

export const MESSAGES: StreamDef = {
  name: "messages",
  display_name: "Messages",
  primary_key: ["message_id"],
  cursor_field: "sent_at",
  time_field: "sent_at",
  title_field: "subject",
  text_fields: ["body"],
  schema: {
    type: "object",
    properties: {
      message_id: { type: "string" },
      subject: { type: "string" },
      from: { type: "string" },
      labels: { type: "array", items: { type: "string" } },
      sent_at: { type: "string", format: "date-time" },
      received_at: { type: "string", format: "date-time" },
      size_bytes: { type: "integer" },
      flagged: { type: "boolean" },
      body: { type: "string", contentMediaType: "text/plain" },
      secret_note: { type: "string" },
      meta: { type: "object", properties: { lang: { type: "string" }, thread: { type: "string" } } },
    },
  },
  query: {
    search: ["subject", "from", "body", "secret_note"],
    exact_filters: ["from", "labels", "flagged", "meta.lang"],
    range_filters: { sent_at: ["gte", "gt", "lte", "lt"], size_bytes: ["gte", "gt", "lte", "lt"] },
    aggregations: {
      group_by: ["from", "labels", "flagged"],
      group_by_time: ["sent_at"],
      sum: ["size_bytes"],
      min: ["sent_at", "size_bytes"],
      max: ["sent_at", "size_bytes"],
      count_distinct: ["from", "labels"],
    },
  },
};

export const MANIFEST: Manifest = {
  connector_key: CONNECTOR,
  display_name: "Test mail",
  version: "1",
  streams: [MESSAGES],
};

const SUBJECTS = [
  "Invoice March",
  "Lunch plans",
  "Quarterly report",
  "Holiday photos",
  "Invoice April",
  "Re: lunch",
];
const SENDERS = ["alice@example.com", "bob@example.com", "carol@example.com"];
const LABELS = [["inbox"], ["inbox", "work"], ["work"], [], ["inbox", "family"]];
const WORDS = ["budget", "meeting", "garden", "piano", "river", "orange", "window", "ticket"];

export type Msg = Record<string, unknown> & { message_id: string };

/** 30 messages: even i on connection A, odd on B; null times at 7 and 13; ties on size_bytes. */
export function fixtureMessages(): { a: Msg[]; b: Msg[] } {
  const a: Msg[] = [];
  const b: Msg[] = [];
  for (let i = 0; i < 30; i++) {
    const day = new Date(Date.UTC(2024, 0, 1) + i * 3 * 86_400_000 + i * 3_600_000).toISOString();
    const msg: Msg = {
      message_id: `m${String(i).padStart(2, "0")}`,
      subject: SUBJECTS[i % SUBJECTS.length],
      from: SENDERS[i % SENDERS.length],
      labels: LABELS[i % LABELS.length],
      sent_at: i === 7 || i === 13 ? null : day,
      size_bytes: i === 4 ? null : (i % 5) * 100,
      flagged: i % 4 === 0,
      body: `Message ${i} talks about ${WORDS[i % WORDS.length]} and ${WORDS[(i + 3) % WORDS.length]}.`,
      secret_note: `SENTINEL hidden note ${i} zebracode`,
      meta: { lang: i % 3 === 0 ? "fr" : "en", thread: `t${i % 6}` },
    };
    (i % 2 === 0 ? a : b).push(msg);
  }
  return { a, b };
}

export interface Loaded {
  opened: OpenedStore;
  store: Store;
  connA: string;
  connB: string;
  messages: { a: Msg[]; b: Msg[] };
}

/** Open a fresh store with the manifest, two connections and the fixture messages. */
export async function openLoaded(backend: TestBackend): Promise<Loaded> {
  const opened = await backend.open();
  const store = opened.store;
  await store.putManifest(MANIFEST);
  const connA = (await store.ensureConnection(CONNECTOR, "Mail A")).connection_id;
  const connB = (await store.ensureConnection(CONNECTOR, "Mail B")).connection_id;
  const messages = fixtureMessages();
  await store.applyBatch(
    connA,
    "messages",
    messages.a.map((data) => ({ op: "upsert" as const, data })),
  );
  await store.applyBatch(
    connB,
    "messages",
    messages.b.map((data) => ({ op: "upsert" as const, data })),
  );
  return { opened, store, connA, connB, messages };
}

export function scopeOf(
  loaded: Pick<Loaded, "connA" | "connB">,
  options: Partial<Pick<StreamScope, "fields" | "since" | "until" | "connectionIds">> = {},
): StreamScope {
  return {
    connectorKey: CONNECTOR,
    stream: MESSAGES,
    connectionIds: options.connectionIds ?? [loaded.connA, loaded.connB].sort(),
    fields: options.fields ?? "all",
    since: options.since ?? null,
    until: options.until ?? null,
  };
}

export function allMessages(loaded: Loaded): (Msg & { connectionId: string })[] {
  return [
    ...loaded.messages.a.map((m) => ({ ...m, connectionId: loaded.connA })),
    ...loaded.messages.b.map((m) => ({ ...m, connectionId: loaded.connB })),
  ];
}

/** Byte-order string comparison (the tie-break order of the contract). */
export function byteCompare(x: string, y: string): number {
  return Buffer.compare(Buffer.from(x), Buffer.from(y));
}

/** Drain every page of a listing, returning record ids in order. */
export async function drain(
  store: Store,
  scopes: StreamScope[],
  query: Omit<Parameters<Store["listRecords"]>[1], "after">,
): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let after: Parameters<Store["listRecords"]>[1]["after"];
  let pages = 0;
  for (;;) {
    const page = await store.listRecords(scopes, { ...query, after });
    pages++;
    for (const r of page.records) ids.push(`${r.connectionId}/${r.recordId}`);
    if (!page.hasMore) break;
    const last = page.records[page.records.length - 1];
    after = { sortValue: last.sortValue ?? null, connectionId: last.connectionId, recordId: last.recordId };
    if (pages > 200) throw new Error("pagination does not terminate");
  }
  return { ids, pages };
}
