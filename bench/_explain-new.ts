import pg from "pg";
import type { StreamScope } from "../src/core/grant.js";
import { parseSearchQuery } from "../src/core/search-query.js";
import { searchSql } from "../src/store/postgres/search-candidates.js";
import { SESSION_SETTINGS } from "../src/store/postgres/pool.js";
import { BENCH_MANIFESTS } from "../bench/dataset.js";
const schema = process.argv[2]; const q = process.argv[3];
const pool = new pg.Pool({ connectionString: "postgres://postgres@127.0.0.1:5432/test", max: 1, options: [...SESSION_SETTINGS, `-c search_path=${schema}`].join(" ") });
const { rows: conns } = await pool.query("SELECT connection_id, connector_key FROM connections ORDER BY connection_id");
const scopes: StreamScope[] = BENCH_MANIFESTS.flatMap((m) => m.streams.map((s) => ({ connectorKey: m.connector_key, stream: s, connectionIds: conns.filter((c: any) => c.connector_key === m.connector_key).map((c: any) => c.connection_id), fields: "all" as const, since: null, until: null })));
const terms = parseSearchQuery(q);
const { sql, values } = searchSql(scopes, { terms, conditions: [], limit: 10, offset: 0, rankWindow: 10000, k: 11 }, { offset: 0, limit: 10, anyTerm: terms.map((t: any) => `'${t.text}'`).join(" | "), fields: ["subject","body","text","description"], titles: [], stamps: false });
console.log("scopes", scopes.length, "sql chars", sql.length, "params", values.length);
for (let i = 0; i < 3; i++) {
  const { rows } = await pool.query(`EXPLAIN (ANALYZE, BUFFERS, SUMMARY) ${sql}`, values);
  if (i === 2 || process.env.FULL) for (const r of rows) console.log(r["QUERY PLAN"]);
  else console.log(rows.slice(-3).map((r: any) => r["QUERY PLAN"]).join(" | "));
}
await pool.end();
