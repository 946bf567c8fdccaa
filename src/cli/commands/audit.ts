// `pdpp audit`: the access log (who read what) as an aligned table.
import type { Command } from "commander";
import { PdppError } from "../../core/errors.js";
import { GRANT_ID_RE } from "../../core/ids.js";
import type { AccessLogEntry } from "../../store/store.js";
import type { CliContext } from "../context.js";
import { listData, ownerCall } from "../rs-call.js";
import { formatTable } from "../table.js";
import { withApp } from "./connections.js";

export function formatAccessLog(entries: AccessLogEntry[]): string {
  if (entries.length === 0) return "no access recorded yet";
  const rows = entries.map((e) => [
    e.at,
    e.client_name ?? (e.grant_id ? e.grant_id : "owner"),
    e.route,
    e.stream ?? "-",
    String(e.record_count),
    String(e.bytes),
    String(e.status),
  ]);
  return formatTable(["TIME", "CLIENT", "TOOL/ROUTE", "STREAM", "RECORDS", "BYTES", "STATUS"], rows);
}

export function register(program: Command, context: CliContext): void {
  program
    .command("audit")
    .description("show the access log: time, client, tool/route, stream, records, bytes")
    .option("--limit <n>", "most recent entries to show (1-1000)", "50")
    .option("--grant <grant_id>", "only this grant's reads")
    .action(async (options: { limit: string; grant?: string }) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
        throw new PdppError(
          "invalid_request",
          `--limit must be an integer from 1 to 1000, got "${options.limit}".`,
        );
      }
      if (options.grant !== undefined && !GRANT_ID_RE.test(options.grant)) {
        throw new PdppError(
          "invalid_request",
          `--grant must be a grant id (grt_ and 16 hex digits, see pdpp grant list), got "${options.grant}".`,
        );
      }
      const query = new URLSearchParams({ limit: String(limit) });
      if (options.grant) query.set("grant_id", options.grant);
      const entries = await withApp(context, async (app) =>
        listData<AccessLogEntry>(
          await ownerCall(app, { method: "GET", path: `/v1/owner/access-log?${query}` }),
        ),
      );
      process.stdout.write(`${formatAccessLog(entries)}\n`);
    });
}
