// `pdpp grant create|list|revoke`: issue client tokens for a slice of the store, list and revoke them.
import { resolve } from "node:path";
import type { Command } from "commander";
import { writeCredentials } from "../../config/credentials.js";
import { isPdppError, PdppError } from "../../core/errors.js";
import type { Grant } from "../../core/grant.js";
import type { CliContext, OpenedApp } from "../context.js";
import { buildGrantRequest, type GrantFlags, type GrantRequest } from "../grant-options.js";
import { listData, ownerCall } from "../rs-call.js";
import { collect, formatTable } from "../table.js";
import { withApp } from "./connections.js";

export interface CreatedGrant {
  grant: Grant;
  token: string;
}

/** Create a grant through the owner API; the client token comes back once, here. */
export async function createGrant(app: OpenedApp, request: GrantRequest): Promise<CreatedGrant> {
  const answer = await ownerCall<Record<string, unknown>>(app, {
    method: "POST",
    path: "/v1/owner/grants",
    body: request,
  });
  const grant = (answer.grant ?? answer) as Grant;
  const token = (answer.token ?? answer.client_token) as string;
  return { grant, token };
}

export function grantStatus(grant: Grant, now = new Date()): string {
  if (grant.revoked_at) return "revoked";
  if (grant.expires_at && Date.parse(grant.expires_at) <= now.getTime()) return "expired";
  return "active";
}

interface CreateFlags extends GrantFlags {
  save?: string;
  providerUrl?: string;
}

export function register(program: Command, context: CliContext): void {
  const grant = program.command("grant").description("issue, list and revoke client grants");

  grant
    .command("create")
    .description("create a grant and print its client token once")
    .requiredOption("--client <name>", "client name, e.g. claude-desktop")
    .requiredOption(
      "--stream <connector_key:stream>",
      "a granted stream, e.g. mbox:messages (repeatable)",
      collect,
    )
    .option("--connections <ids>", 'connections: "all" or a comma list of cin_… ids', "all")
    .option("--fields <fields>", 'fields: "all" or a comma list of field paths', "all")
    .option("--since <iso>", "only records whose time is at or after this")
    .option("--until <iso>", "only records whose time is before this")
    .option("--expires <iso>", "the grant stops working at this time")
    .option("--purpose <text>", "why the client gets this access")
    .option("--save <file>", "also write the token to a 0600 credentials file for `pdpp mcp`")
    .option(
      "--provider-url <url>",
      "with --save: the server URL `pdpp mcp` should use (else it opens the home)",
    )
    .action(async (flags: CreateFlags) => {
      const request = buildGrantRequest(flags);
      const created = await withApp(context, (app) => createGrant(app, request));
      const lines = [
        `grant ${created.grant.grant_id} for ${created.grant.client_name} (${request.streams.length} stream${request.streams.length === 1 ? "" : "s"})`,
        `client token (shown once; keep it secret): ${created.token}`,
      ];
      if (flags.save) {
        const path = resolve(flags.save);
        writeCredentials(path, {
          token: created.token,
          ...(flags.providerUrl
            ? { provider_url: flags.providerUrl.replace(/\/+$/, "") }
            : { store: context.home }),
        });
        // `pdpp mcp` takes the provider URL or the store from the file.
        lines.push(`saved to ${path} (mode 0600); run: pdpp mcp --token-file ${path}`);
      }
      process.stdout.write(`${lines.join("\n")}\n`);
    });

  grant
    .command("list")
    .description("list grants")
    .action(async () => {
      const grants = await withApp(context, async (app) =>
        listData<Grant>(await ownerCall(app, { method: "GET", path: "/v1/owner/grants" })),
      );
      if (grants.length === 0) {
        process.stdout.write("no grants yet (pdpp grant create …)\n");
        return;
      }
      const rows = grants.map((g) => [
        g.grant_id,
        g.client_name,
        grantStatus(g),
        g.created_at,
        g.expires_at ?? "never",
        g.streams.map((s) => `${s.connector_key}:${s.stream}`).join(","),
      ]);
      process.stdout.write(
        `${formatTable(["GRANT", "CLIENT", "STATUS", "CREATED", "EXPIRES", "STREAMS"], rows)}\n`,
      );
    });

  grant
    .command("revoke")
    .description("revoke a grant; its token stops working on the next request")
    .argument("<grant_id>", "grt_…")
    .action(async (grantId: string) => {
      await withApp(context, (app) =>
        ownerCall(app, { method: "POST", path: `/v1/owner/grants/${encodeURIComponent(grantId)}/revoke` }),
      ).catch((error: unknown) => {
        throw isPdppError(error) && error.code === "grant_not_found"
          ? new PdppError("grant_not_found", `no grant ${grantId}; see pdpp grant list.`)
          : error;
      });
      process.stdout.write(`revoked ${grantId}\n`);
    });
}
