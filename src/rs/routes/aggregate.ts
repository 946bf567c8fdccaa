// GET /v1/streams/{stream}/aggregate: count/sum/min/max/count_distinct, optionally grouped by a
// field or by time buckets in an IANA time zone, validated against the manifest's capabilities.
import type { Hono } from "hono";
import { isFieldGranted } from "../../core/capabilities.js";
import { invalidRequest, PdppError } from "../../core/errors.js";
import { parseFilterEntries, resolveFilters } from "../../core/filters.js";
import type { StreamScope } from "../../core/grant.js";
import type { StreamQueryCapabilities } from "../../core/manifest.js";
import { fieldSchemaAt } from "../../core/manifest.js";
import type { AggregateAnswer } from "../../core/wire.js";
import type { AggregateQuery, TimeGranularity } from "../../store/store.js";
import { noteRead, sendJson } from "../access-log.js";
import type { RsEnv } from "../env.js";
import { Params } from "../params.js";
import { checkFieldPath } from "../read-params.js";
import { checkConnectionParam, checkStreamName, streamScopes } from "../render.js";
import { clampedLimit } from "./records.js";

const METRICS = ["count", "sum", "min", "max", "count_distinct"] as const;
const GRANULARITIES = ["minute", "hour", "day", "week", "month", "quarter", "year"] as const;
type AggKey = keyof NonNullable<StreamQueryCapabilities["aggregations"]>;

/** The field must be declared, granted and listed under `kind` in every scope's manifest. */
function requireCapability(
  field: string,
  options: { scopes: StreamScope[]; kind: AggKey; param: string },
): void {
  checkFieldPath(field, options.scopes, options.param);
  for (const s of options.scopes) {
    if (!fieldSchemaAt(s.stream, field)) {
      throw invalidRequest(`${s.stream.name} has no field ${field}; see schema(stream).`, options.param);
    }
    if (!isFieldGranted(s.stream, s.fields, field)) {
      throw new PdppError("field_not_granted", "the grant does not include this field.", {
        param: options.param,
      });
    }
    const allowed = s.stream.query?.aggregations?.[options.kind] ?? [];
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
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(raw))
    throw invalidRequest("time_zone must be an IANA zone like Europe/Paris.", "time_zone");
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: raw }).resolvedOptions().timeZone;
  } catch {
    throw invalidRequest("time_zone must be an IANA zone like Europe/Paris.", "time_zone");
  }
}

export function registerAggregate(app: Hono<RsEnv>): void {
  app.get("/v1/streams/:stream/aggregate", async (c) => {
    const params = new Params(c.req.url);
    params.allowOnly(
      ["metric", "field", "group_by", "group_by_time", "granularity", "time_zone", "limit", "connection_id"],
      { filter: true },
    );
    const stream = checkStreamName(c.req.param("stream"));
    const connectionId = checkConnectionParam(params.single("connection_id") || undefined);
    noteRead(c, { route: "GET /v1/streams/:stream/aggregate", stream, connectionId });
    const metric = params.oneOf("metric", METRICS);
    if (!metric) throw invalidRequest(`metric is required: one of ${METRICS.join(", ")}.`, "metric");
    const { limit, warnings } = clampedLimit(params, { fallback: 10, max: 100 });
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
      ...(effectiveTimeZone ? { effective_time_zone: effectiveTimeZone } : {}),
      meta: { warnings },
    };
    return sendJson(c, answer, { records: 0 });
  });
}
