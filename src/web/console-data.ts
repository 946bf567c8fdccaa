// What the console pages show, loaded from the store: grants with their scope, last use and reads
// per day over the last 30 days; connections with each stream's record count and records per
// period of its time field.
import type { Grant, StreamScope } from "../core/grant.js";
import { visibleScopes } from "../core/grant-scope.js";
import type { Store, StoredGrant, TimeGranularity } from "../store/store.js";
import { describeGrantStream, streamLabel } from "./catalog.js";
import { type Bar, dailySeries, periodSeries } from "./charts.js";

export const READ_DAYS = 30;

export interface GrantRow {
  grant: Grant;
  scope: string[];
  lastUse: string | null;
  status: "active" | "revoked" | "expired";
  /** Reads (access-log rows) per UTC day, the last READ_DAYS days. */
  reads: Bar[];
}

export interface StreamRow {
  label: string;
  count: number;
  /** Records per period of the stream's time field (empty without one, or without records). */
  overTime: Bar[];
  granularity: "month" | "year";
}

export interface ConnectionRow {
  connectionId: string;
  connectorKey: string;
  displayName: string;
  createdAt: string;
  streams: StreamRow[];
}

export function publicGrant(grant: StoredGrant): Grant {
  const { token_hash: _hidden, ...rest } = grant;
  return rest;
}

function statusOf(grant: Grant, now: number): GrantRow["status"] {
  if (grant.revoked_at) return "revoked";
  return grant.expires_at && Date.parse(grant.expires_at) <= now ? "expired" : "active";
}

export async function grantRows(store: Store, now = new Date()): Promise<GrantRow[]> {
  const since = new Date(now.getTime() - (READ_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  const [grants, days] = await Promise.all([
    store.listGrants(),
    store.accessLogDaily(`${since}T00:00:00.000Z`),
  ]);
  const perGrant = new Map<string, Map<string, number>>();
  for (const d of days) {
    if (d.grant_id === null) continue;
    const map = perGrant.get(d.grant_id) ?? new Map<string, number>();
    map.set(d.day, d.reads);
    perGrant.set(d.grant_id, map);
  }
  const rows = await Promise.all(
    grants.map(async (stored) => {
      const grant = publicGrant(stored);
      const [last] = await store.listAccessLog({ limit: 1, grantId: grant.grant_id });
      return {
        grant,
        scope: grant.streams.map((s) => describeGrantStream(s, streamLabel(s.connector_key, s.stream))),
        lastUse: last?.at ?? null,
        status: statusOf(grant, now.getTime()),
        reads: dailySeries(perGrant.get(grant.grant_id) ?? new Map(), { today: now, days: READ_DAYS }),
      };
    }),
  );
  return rows.sort((a, b) => b.grant.created_at.localeCompare(a.grant.created_at));
}

const MAX_PERIODS = 100;

/** Records per month of the time field (per year when that is more than MAX_PERIODS months). */
async function overTime(
  store: Store,
  scope: StreamScope,
): Promise<Pick<StreamRow, "overTime" | "granularity">> {
  const field = scope.stream.time_field;
  if (!field) return { overTime: [], granularity: "month" };
  for (const granularity of ["month", "year"] as const satisfies TimeGranularity[]) {
    const result = await store.aggregate([scope], {
      metric: "count",
      conditions: [],
      groupByTime: { field, granularity, timeZone: "UTC" },
      limit: MAX_PERIODS,
    });
    if ((result.groupCount ?? 0) > MAX_PERIODS && granularity === "month") continue;
    const bars = (result.groups ?? [])
      .filter((g) => g.key !== null)
      .map((g) => ({
        label: String(g.key).slice(0, granularity === "month" ? 7 : 4),
        value: Number(g.value),
      }));
    return { overTime: periodSeries(bars, granularity), granularity };
  }
  return { overTime: [], granularity: "year" };
}

export async function connectionRows(store: Store): Promise<ConnectionRow[]> {
  const [manifests, connections] = await Promise.all([store.listManifests(), store.listConnections()]);
  const streams = new Map<string, StreamRow[]>();
  for (const scope of visibleScopes({ kind: "owner" }, { manifests, connections })) {
    const byConnection = await store.countRecords(scope);
    for (const connectionId of scope.connectionIds) {
      const one = { ...scope, connectionIds: [connectionId] };
      const count = byConnection[connectionId] ?? 0;
      const series = count > 0 ? await overTime(store, one) : { overTime: [], granularity: "month" as const };
      const list = streams.get(connectionId) ?? [];
      list.push({ label: streamLabel(scope.connectorKey, scope.stream.name), count, ...series });
      streams.set(connectionId, list);
    }
  }
  return [...connections]
    .sort(
      (a, b) =>
        a.connector_key.localeCompare(b.connector_key) || a.display_name.localeCompare(b.display_name),
    )
    .map((conn) => ({
      connectionId: conn.connection_id,
      connectorKey: conn.connector_key,
      displayName: conn.display_name,
      createdAt: conn.created_at,
      streams: streams.get(conn.connection_id) ?? [],
    }));
}
