// Real-format fixtures for the agent-history importers (claude.ai export, Claude Code and Codex logs),
// and reading back what an import stored.
import type { Manifest } from "../../src/core/manifest.js";
import type { Store } from "../../src/store/store.js";

/** Every live record of one stream of a connector, as { recordId: data }, sorted by id. */
export async function storedRecords(
  store: Store,
  manifest: Manifest,
  stream: string,
): Promise<Map<string, Record<string, unknown>>> {
  const connections = (await store.listConnections()).filter(
    (c) => c.connector_key === manifest.connector_key,
  );
  const def = manifest.streams.find((s) => s.name === stream)!;
  const out = new Map<string, Record<string, unknown>>();
  for (const c of connections) {
    let after:
      | { sortValue: string | number | boolean | null; connectionId: string; recordId: string }
      | undefined;
    for (;;) {
      const page = await store.listRecords(
        [
          {
            connectorKey: manifest.connector_key,
            stream: def,
            connectionIds: [c.connection_id],
            fields: "all",
            since: null,
            until: null,
          },
        ],
        { conditions: [], sort: { field: def.primary_key[0]!, direction: "asc" }, limit: 500, after },
      );
      for (const r of page.records) out.set(r.recordId, r.data);
      if (!page.hasMore) break;
      const last = page.records.at(-1)!;
      after = { sortValue: last.sortValue ?? null, connectionId: last.connectionId, recordId: last.recordId };
    }
  }
  return new Map([...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export const jsonl = (entries: unknown[]): string => `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`;

/** A Claude Code log entry with the fields every real one carries. */
export function ccEntry(
  session: string,
  uuid: string,
  at: string,
  entry: Record<string, unknown>,
): Record<string, unknown> {
  return {
    parentUuid: null,
    isSidechain: false,
    userType: "external",
    cwd: "/home/ana/shop",
    sessionId: session,
    version: "1.0.60",
    gitBranch: "feature/ß-ümlaut",
    ...entry,
    uuid,
    timestamp: at,
  };
}

/** A Codex rollout line in the envelope layout. */
export const cx = (at: string, type: string, payload: Record<string, unknown>) => ({
  timestamp: at,
  type,
  payload,
});
