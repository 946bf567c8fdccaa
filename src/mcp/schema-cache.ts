// Per-server cache of one stream's schema rows (title_field, text and binary fields): fetch and
// query_records need them on every call, and a stdio server lives for a whole session.
import { parseStreamName } from "../core/ids.js";
import type { SchemaAnswer, SchemaStream } from "../core/wire.js";
import type { RsClient } from "./rs-client.js";

/** Field capabilities change only when a manifest is re-registered; a minute of staleness is harmless. */
const TTL_MS = 60_000;
const MAX_ENTRIES = 128;

export class StreamSchemaCache {
  private readonly entries = new Map<string, { at: number; answer: Promise<SchemaAnswer> }>();

  /** The stream's row per connector_key, as this bearer sees it (one RS call per stream per minute). */
  async rows(rs: RsClient, ref: { tool: string; stream: string }): Promise<Map<string, SchemaStream>> {
    const answer = await this.answer(rs, ref);
    const out = new Map<string, SchemaStream>();
    // A qualified name (`connector_key:stream`) got only its connector back; rows keep the bare name.
    const bare = parseStreamName(ref.stream)?.stream ?? ref.stream;
    for (const c of answer.connectors) {
      const row = c.streams.find((s) => s.name === bare);
      if (row) out.set(c.connector_key, row);
    }
    return out;
  }

  private answer(rs: RsClient, ref: { tool: string; stream: string }): Promise<SchemaAnswer> {
    const now = Date.now();
    const hit = this.entries.get(ref.stream);
    if (hit && now - hit.at < TTL_MS) return hit.answer;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    // A cache fill is the adapter's own lookup: in-process it is not logged as a read (the tool
    // call that needed it is); over HTTP the RS logs it as the GET /v1/schema it is.
    const answer = rs.get<SchemaAnswer>({
      tool: ref.tool,
      internal: true,
      path: "/v1/schema",
      query: [["stream", ref.stream]],
    });
    this.entries.set(ref.stream, { at: now, answer });
    // A failed lookup is not remembered: the next call asks the RS again.
    answer.catch(() => this.entries.delete(ref.stream));
    return answer;
  }
}
