// `pdpp grant create|list|revoke`: issue client tokens for a slice of the store, list and revoke them.
import { resolve } from "node:path";
import type { Command } from "commander";
import { writeCredentials } from "../../config/credentials.js";
import { isPdppError, PdppError } from "../../core/errors.js";
import type { Grant } from "../../core/grant.js";
import type { Manifest } from "../../core/manifest.js";
import { clientSetupSnippets, formatSnippets, PDPP_BIN, shellQuote } from "../client-setup.js";
import type { CliContext, OpenedApp } from "../context.js";
import { fitGrantRequest } from "../grant-fit.js";
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

/** One line per grant: its streams, with what narrows each (connections, fields, time range). */
export function describeScope(grant: Grant): string {
  return grant.streams
    .map((s) => {
      const parts: string[] = [];
      if (s.connections !== "all") parts.push(`connections ${s.connections.join(",")}`);
      if (s.fields !== "all") parts.push(`fields ${s.fields.join(",")}`);
      const range = s.time_range;
      if (range?.since || range?.until) parts.push(`time [${range.since ?? "…"}, ${range.until ?? "…"})`);
      return `${s.connector_key}:${s.stream}${parts.length > 0 ? ` (${parts.join("; ")})` : ""}`;
    })
    .join(", ");
}

export function grantStatus(grant: Grant, now = new Date()): string {
  if (grant.revoked_at) return "revoked";
  if (grant.expires_at && Date.parse(grant.expires_at) <= now.getTime()) return "expired";
  return "active";
}

/** Fit the shared --connections/--fields to each stream (see grant-fit.ts), then create the grant. */
export async function createFittedGrant(app: OpenedApp, request: GrantRequest): Promise<CreatedGrant> {
  const [connections, manifests] = await Promise.all([
    ownerCall(app, { method: "GET", path: "/v1/owner/connections" }).then((a) =>
      listData<{ connection_id: string; connector_key: string }>(a),
    ),
    ownerCall(app, { method: "GET", path: "/v1/owner/connectors" }).then((a) => listData<Manifest>(a)),
  ]);
  return createGrant(app, fitGrantRequest(request, { connections, manifests }));
}

interface CreateFlags extends GrantFlags {
  save?: string;
  providerUrl?: string;
  setup?: boolean;
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
      "a running `pdpp serve` agents should use (saved with --save, hosted /mcp config with --setup)",
    )
    .option(
      "--setup",
      "also print ready-to-paste config for Claude Desktop, Claude Code, Codex, Cursor, Gemini CLI",
    )
    .addHelpText(
      "after",
      "\n--connections and --fields apply to every --stream: each stream keeps the connections of its own\nconnector and the fields its schema has (each listed one must fit some stream).",
    )
    .action(async (flags: CreateFlags) => {
      const request = buildGrantRequest(flags);
      const created = await withApp(context, (app) => createFittedGrant(app, request));
      const lines = [
        `grant ${created.grant.grant_id} for ${created.grant.client_name}: ${describeScope(created.grant)}`,
        `client token (shown once; keep it secret): ${created.token}`,
      ];
      const providerUrl = flags.providerUrl?.replace(/\/+$/, "");
      const setup = {
        node: process.execPath,
        bin: PDPP_BIN,
        home: context.home,
        token: created.token,
        ...(providerUrl ? { mcpUrl: `${providerUrl}/mcp` } : {}),
      };
      if (flags.save) {
        const path = resolve(flags.save);
        writeCredentials(path, {
          token: created.token,
          ...(providerUrl ? { provider_url: providerUrl } : { store: context.home }),
        });
        // `pdpp mcp` takes the provider URL or the store from the file.
        lines.push(`saved to ${path} (mode 0600); run: pdpp mcp --token-file ${path}`);
      }
      if (flags.setup) {
        lines.push("", "Connect an MCP client:", "", formatSnippets(clientSetupSnippets(setup)).trimEnd());
      } else if (!flags.save) {
        const source = providerUrl ? ["--provider-url", providerUrl] : ["--store", setup.home];
        const command = [setup.node, setup.bin, "mcp", ...source].map(shellQuote).join(" ");
        lines.push(
          `connect (stdio): PDPP_TOKEN=<client token> ${command}`,
          "  (add --setup for Claude Desktop, Claude Code, Codex, Cursor and Gemini CLI config)",
        );
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
