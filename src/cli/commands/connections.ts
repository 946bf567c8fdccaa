// `pdpp connections add|list|remove`: manage connections through the owner API.
import type { Command } from "commander";
import { isPdppError, PdppError } from "../../core/errors.js";
import type { Connection } from "../../store/store.js";
import type { CliContext, OpenedApp } from "../context.js";
import { listData, ownerCall } from "../rs-call.js";
import { formatTable } from "../table.js";

/** Run `work` against an in-process app of the home and always close it. */
export async function withApp<T>(context: CliContext, work: (app: OpenedApp) => Promise<T>): Promise<T> {
  const app = await context.openApp();
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}

export function register(program: Command, context: CliContext): void {
  const connections = program
    .command("connections")
    .description("manage connections (accounts of a connector)");

  connections
    .command("add")
    .description("add a connection (idempotent for the same connector and label)")
    .argument("<connector_key>", "connector, e.g. mbox")
    .argument("<label>", "account label, e.g. work@example.com")
    .action(async (connectorKey: string, label: string) => {
      const connection = await withApp(context, (app) =>
        ownerCall<Connection>(app, {
          method: "POST",
          path: "/v1/owner/connections",
          body: { connector_key: connectorKey, display_name: label },
        }),
      );
      process.stdout.write(
        `${connection.connection_id}  ${connection.connector_key}  ${connection.display_name}\n`,
      );
    });

  connections
    .command("list")
    .description("list connections")
    .action(async () => {
      const rows = await withApp(context, async (app) =>
        listData<Connection>(await ownerCall(app, { method: "GET", path: "/v1/owner/connections" })),
      );
      if (rows.length === 0) {
        process.stdout.write("no connections yet (pdpp import … or pdpp connections add …)\n");
        return;
      }
      const table = formatTable(
        ["CONNECTION", "CONNECTOR", "LABEL", "CREATED"],
        rows.map((c) => [c.connection_id, c.connector_key, c.display_name, c.created_at ?? ""]),
      );
      process.stdout.write(`${table}\n`);
    });

  connections
    .command("remove")
    .description("remove a connection and all its records")
    .argument("<connection_id>", "cin_…")
    .action(async (connectionId: string) => {
      await withApp(context, (app) =>
        ownerCall(app, {
          method: "DELETE",
          path: `/v1/owner/connections/${encodeURIComponent(connectionId)}`,
        }),
      ).catch((error: unknown) => {
        throw isPdppError(error) && error.code === "connection_not_found"
          ? new PdppError("connection_not_found", `no connection ${connectionId}; see pdpp connections list.`)
          : error;
      });
      process.stdout.write(`removed ${connectionId} and its records\n`);
    });
}
