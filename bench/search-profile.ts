// Where one SQLite search spends its CPU, statement by statement: every prepared statement of the
// store is wrapped to add the process CPU of its get/all/run to its SQL text's total. For reading
// profiles, not a benchmark row.  npx tsx bench/search-profile.ts [--q invoice] [--limit 5] [--runs 100]
import { parseArgs } from "node:util";
import { createApp } from "../src/rs/app.js";
import { SqliteDb } from "../src/store/sqlite/db.js";
import { grantEverything } from "./dataset.js";
import { sqliteDataset } from "./search-data.js";

const { values } = parseArgs({
  options: {
    records: { type: "string", default: "1000000" },
    q: { type: "string", default: "invoice" },
    limit: { type: "string", default: "5" },
    runs: { type: "string", default: "100" },
    extra: { type: "string", default: "" },
  },
});

const totals = new Map<string, { cpu: number; calls: number }>();
let measuring = false;
const original = SqliteDb.prototype.stmt;
SqliteDb.prototype.stmt = function (this: SqliteDb, sql: string) {
  const statement = original.call(this, sql);
  const proxy: typeof statement = new Proxy(statement, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "get" || prop === "all" || prop === "run") {
        return (...args: unknown[]) => {
          if (!measuring) return value.apply(target, args);
          const c0 = process.cpuUsage();
          try {
            return value.apply(target, args);
          } finally {
            const c = process.cpuUsage(c0);
            const key = sql.replace(/\s+/g, " ").slice(0, 400);
            const t = totals.get(key) ?? { cpu: 0, calls: 0 };
            t.cpu += (c.user + c.system) / 1000;
            t.calls += 1;
            totals.set(key, t);
          }
        };
      }
      if (prop === "pluck" || prop === "raw" || prop === "expand") {
        return (...args: unknown[]) => {
          value.apply(target, args);
          return proxy;
        };
      }
      return value.bind(target);
    },
  });
  return proxy;
};

const data = await sqliteDataset(Number(values.records), 42);
const app = createApp({ store: data.store, publicUrl: "http://127.0.0.1:7662" });
const token = await grantEverything(data.store, "bench-search-profile");
const url = `http://127.0.0.1:7662/v1/search?q=${encodeURIComponent(values.q as string)}&limit=${values.limit}${values.extra}`;
const get = async () =>
  (await app.fetch(new Request(url, { headers: { authorization: `Bearer ${token}` } }))).text();
for (let i = 0; i < 5; i++) await get();
const runs = Number(values.runs);
measuring = true;
const c0 = process.cpuUsage();
for (let i = 0; i < runs; i++) await get();
const c = process.cpuUsage(c0);
measuring = false;
const whole = (c.user + c.system) / 1000 / runs;
let inSql = 0;
for (const t of totals.values()) inSql += t.cpu / runs;
console.log(`${url}: ${whole.toFixed(2)} CPU-ms per search, ${inSql.toFixed(2)} in statements`);
for (const [sql, t] of [...totals].sort((a, b) => b[1].cpu - a[1].cpu).slice(0, 20)) {
  console.log(`${(t.cpu / runs).toFixed(3)} ms  ${(t.calls / runs).toFixed(1)}×  ${sql}`);
}
await data.store.close();
