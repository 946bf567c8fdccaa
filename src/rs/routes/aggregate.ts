// GET /v1/streams/{stream}/aggregate: count/sum/min/max/count_distinct, optionally grouped by a
// field or by time buckets in an IANA time zone, validated against the manifest's capabilities.
//
// Decisions where 20-rs-api.md is silent:
// - `count` takes an optional `field` (then it counts records where the field is not null) that
//   needs no aggregation capability; every other metric needs `field` listed under that metric.
// - `group_count` and `other_count` are present exactly when the answer is grouped (`groups`);
//   an ungrouped answer carries `value` instead.
// - `limit` above 100 is clamped with a `limit_clamped` warning, like the records list.
// - `streams` (qualified names) is present when a bare stream name fans in over several
//   connectors, so a total never silently mixes them.
// - `granularity` and `time_zone` without `group_by_time` → 400 naming the parameter;
//   `time_zone` is echoed in its canonical IANA spelling as `effective_time_zone`.
import type { Hono } from "hono";
import { invalidRequest } from "../../core/errors.js";
import { parseFilterEntries, resolveFilters } from "../../core/filters.js";
import type { StreamScope } from "../../core/grant.js";
import { qualifiedNames, requireInEveryConnector } from "../../core/grant-scope.js";
import type { StreamQueryCapabilities } from "../../core/manifest.js";
import { fieldSchemaAt } from "../../core/manifest.js";
import { resolveTimeZone as canonicalTimeZone } from "../../core/time-buckets.js";
import type { AggregateAnswer } from "../../core/wire.js";
import type { AggregateQuery, TimeGranularity } from "../../store/store.js";
import { sendJson } from "../access-log.js";
import type { RsEnv } from "../env.js";
import { checkFieldPath } from "../read-params.js";
import { openStreamRead, streamScopes } from "../render.js";

const METRICS = ["count", "sum", "min", "max", "count_distinct"] as const;
const GRANULARITIES = ["minute", "hour", "day", "week", "month", "quarter", "year"] as const;
const AGGREGATE_PARAMS = [
  "metric",
  "field",
  "group_by",
  "group_by_time",
  "granularity",
  "time_zone",
  "limit",
  "connection_id",
] as const;
type AggKey = keyof NonNullable<StreamQueryCapabilities["aggregations"]>;

/** The field must be granted, declared in every scope and listed under `kind` in each manifest. */
function requireCapability(
  field: string,
  options: { scopes: StreamScope[]; kind: AggKey; param: string },
): void {
  checkFieldPath(field, options.scopes, options.param);
  const allowedIn = (s: StreamScope) => s.stream.query?.aggregations?.[options.kind] ?? [];
  requireInEveryConnector(options.scopes, {
    param: options.param,
    why: `only some of them allow ${options.kind} on ${field}`,
    allows: (s) => allowedIn(s).includes(field),
  });
  for (const s of options.scopes) {
    if (!fieldSchemaAt(s.stream, field)) {
      throw invalidRequest(`${s.stream.name} has no field ${field}; see schema(stream).`, options.param);
    }
    const allowed = allowedIn(s);
    if (!allowed.includes(field)) {
      throw invalidRequest(
        `${field} does not support ${options.kind} on ${s.stream.name}; allowed: ${allowed.join(", ") || "none"}.`,
        options.param,
      );
    }
  }
}

/** An IANA zone name, resolved to its canonical spelling; anything else is a 400. */
export function resolveTimeZone(raw: string | undefined): string {
  if (raw === undefined || raw === "") return "UTC";
  // Checked before Intl sees it, so the error never carries odd characters back.
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(raw))
    throw invalidRequest("time_zone must be an IANA zone like Europe/Paris.", "time_zone");
  return canonicalTimeZone(raw);
}

export function registerAggregate(app: Hono<RsEnv>): void {
  app.get("/v1/streams/:stream/aggregate", async (c) => {
    const { params, stream, connectionId } = openStreamRead(c, {
      route: "GET /v1/streams/:stream/aggregate",
      allow: AGGREGATE_PARAMS,
      filter: true,
    });
    const metric = params.oneOf("metric", METRICS);
    if (!metric) throw invalidRequest(`metric is required: one of ${METRICS.join(", ")}.`, "metric");
    const { limit, warnings } = params.clampedLimit({ fallback: 10, max: 100 });
    const { scopes } = await streamScopes(c, { stream, connectionId });
    const field = params.single("field") || undefined;
    if (metric === "count") {
      if (field !== undefined) checkFieldPath(field, scopes, "field");
    } else {
      if (field === undefined) throw invalidRequest(`metric ${metric} needs field.`, "field");
      requireCapability(field, { scopes, kind: metric, param: "field" });
    }
    const groupBy = params.single("group_by") || undefined;
    const groupByTime = params.single("group_by_time") || undefined;
    if (groupBy !== undefined && groupByTime !== undefined) {
      throw invalidRequest("pass group_by or group_by_time, not both.", "group_by");
    }
    const query: AggregateQuery = {
      metric,
      field,
      conditions: resolveFilters(parseFilterEntries(params.entries()), scopes),
      limit,
    };
    if (groupBy !== undefined) {
      requireCapability(groupBy, { scopes, kind: "group_by", param: "group_by" });
      query.groupBy = groupBy;
    }
    let effectiveTimeZone: string | undefined;
    if (groupByTime !== undefined) {
      requireCapability(groupByTime, { scopes, kind: "group_by_time", param: "group_by_time" });
      const granularity = params.oneOf("granularity", GRANULARITIES);
      if (!granularity)
        throw invalidRequest(
          `group_by_time needs granularity: one of ${GRANULARITIES.join(", ")}.`,
          "granularity",
        );
      effectiveTimeZone = resolveTimeZone(params.single("time_zone"));
      query.groupByTime = {
        field: groupByTime,
        granularity: granularity as TimeGranularity,
        timeZone: effectiveTimeZone,
      };
    } else {
      for (const p of ["granularity", "time_zone"]) {
        if (params.has(p)) throw invalidRequest(`${p} needs group_by_time.`, p);
      }
    }
    const result = await c.get("deps").store.aggregate(scopes, query);
    const grouped = query.groupBy !== undefined || query.groupByTime !== undefined;
    const answer: AggregateAnswer = {
      object: "aggregate",
      stream,
      metric,
      ...(field !== undefined ? { field } : {}),
      ...(grouped
        ? {
            groups: result.groups ?? [],
            group_count: result.groupCount ?? 0,
            other_count: result.otherCount ?? 0,
          }
        : { value: result.value ?? null }),
      filtered_record_count: result.filteredRecordCount,
      // A bare name shared by several connectors fans in: say which qualified streams it spans.
      ...(new Set(scopes.map((s) => s.connectorKey)).size > 1 ? { streams: qualifiedNames(scopes) } : {}),
      ...(effectiveTimeZone ? { effective_time_zone: effectiveTimeZone } : {}),
      meta: { warnings },
    };
    return sendJson(c, answer, { records: 0 });
  });
}
