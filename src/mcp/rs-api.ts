// Typed calls of the RS read endpoints (20-rs-api.md) over an RsClient.
import type {
  AggregateAnswer,
  BlobRangeAnswer,
  FieldWindowAnswer,
  ListEnvelope,
  SchemaAnswer,
  SearchHit,
  TokenAnswer,
  WireRecord,
} from "../core/wire.js";
import type { AccessLogSlot } from "../rs/in-process.js";
import { type RsClient, seg } from "./rs-client.js";

type Params = [string, string][];

export function param(out: Params, key: string, value: string | number | boolean | undefined | null): void {
  if (value !== undefined && value !== null) out.push([key, String(value)]);
}

export const rsApi = {
  token(rs: RsClient, tool: string): Promise<TokenAnswer> {
    return rs.get({ tool, path: "/v1/token" });
  },
  schema(
    rs: RsClient,
    tool: string,
    q: { stream?: string; connection_id?: string; view?: "compact" | "full" },
  ) {
    const query: Params = [];
    param(query, "view", q.view);
    param(query, "stream", q.stream);
    param(query, "connection_id", q.connection_id);
    return rs.get<SchemaAnswer>({ tool, path: "/v1/schema", query });
  },
  listRecords(rs: RsClient, tool: string, stream: string, query: Params) {
    return rs.get<ListEnvelope<WireRecord>>({ tool, path: `/v1/streams/${seg(stream)}/records`, query });
  },
  getRecord(rs: RsClient, tool: string, ref: { stream: string; recordId: string }, query: Params) {
    return rs.get<WireRecord>({
      tool,
      path: `/v1/streams/${seg(ref.stream)}/records/${seg(ref.recordId)}`,
      query,
    });
  },
  fieldWindow(rs: RsClient, tool: string, ref: { stream: string; recordId: string }, query: Params) {
    return rs.get<FieldWindowAnswer>({
      tool,
      path: `/v1/streams/${seg(ref.stream)}/records/${seg(ref.recordId)}/field-window`,
      query,
    });
  },
  blobRange(rs: RsClient, tool: string, ref: { stream: string; recordId: string }, query: Params) {
    return rs.get<BlobRangeAnswer>({
      tool,
      path: `/v1/streams/${seg(ref.stream)}/records/${seg(ref.recordId)}/blob`,
      query,
    });
  },
  aggregate(rs: RsClient, tool: string, stream: string, query: Params) {
    return rs.get<AggregateAnswer>({ tool, path: `/v1/streams/${seg(stream)}/aggregate`, query });
  },
  search(rs: RsClient, tool: string, query: Params, logSlot?: AccessLogSlot) {
    return rs.get<ListEnvelope<SearchHit>>({ tool, path: "/v1/search", query, logSlot });
  },
};
