// Records of any format prepared for the in-process SQLite store as they are read: each record is
// serialized once (record-json.ts) and validated and prepared from the record itself
// (ingest-prepare.ts), so the sink applies prepared ops (owner-sink.ts ingestPrepared) instead of
// parsing every record's JSON back and preparing it again inside applyBatch. Same stored rows,
// rejections and positions as that path; generic-prepare.ts does the same in a worker thread.
import type { Manifest, StreamDef } from "../core/manifest.js";
import { validateManifest } from "../core/manifest-validate.js";
import { prepareOp, streamDefKey } from "../store/sqlite/ingest-prepare.js";
import { survivesJson } from "./generic-prepare.js";
import { recordJson } from "./record-json.js";
import type { RunnableItem, SerializedItem } from "./types.js";

/** One record as runImport and the in-process sink would serialize, parse back and prepare it. */
export function preparedItem(
  item: { stream: string; data: Record<string, unknown>; position?: string; op?: "upsert" | "delete" },
  def: { stream: StreamDef; key: string },
): SerializedItem {
  const built = recordJson(item.data);
  // What ingestDirect would parse back from the JSON: the record itself when the round trip changes
  // nothing (always, unless a number overflowed or a value is no JSON type).
  const data = survivesJson(built.data) ? built.data : (JSON.parse(built.json) as Record<string, unknown>);
  const op = item.op === "delete" ? "delete" : "upsert";
  return {
    stream: item.stream,
    json: built.json,
    position: item.position,
    prepared: { defKey: def.key, op: prepareOp({ op, data }, def.stream) },
    ...(op === "delete" ? { op } : {}),
    ...(built.repaired ? { repaired: built.repaired } : {}),
  };
}

/** `items` with every record of a `manifest` stream prepared (errors and others pass as they are). */
export async function* preparedItems(
  items: AsyncIterable<RunnableItem>,
  manifest: Manifest,
): AsyncGenerator<RunnableItem> {
  // Prepared under the definitions as the store holds them (validated: its key order), so the
  // store applies them (streamDefKey); a manifest it would refuse leaves the records as they are.
  let streams: StreamDef[] = [];
  try {
    streams = validateManifest(manifest).streams;
  } catch {}
  const defs = new Map(streams.map((s) => [s.name, { stream: s, key: streamDefKey(s) }]));
  for await (const item of items) {
    const def = "data" in item ? defs.get(item.stream) : undefined;
    yield def && "data" in item ? preparedItem(item, def) : item;
  }
}
