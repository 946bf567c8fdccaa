// `pdpp console`: print a one-time sign-in link to the owner web console of this home's server
// (valid 10 minutes, usable once, stored only as a hash).
import type { Command } from "commander";
import { homePaths } from "../../config/home.js";
import { readOwnerToken } from "../../config/owner-token.js";
import { PdppError } from "../../core/errors.js";
import { openStoreAt } from "../../store/open.js";
import { createSignInLink, SIGNIN_LINK_TTL_MS } from "../../web/session.js";
import type { CliContext } from "../context.js";

export const DEFAULT_CONSOLE_URL = "http://127.0.0.1:7662";

function baseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new PdppError("invalid_request", `--url must be the server's URL, e.g. ${DEFAULT_CONSOLE_URL}.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new PdppError("invalid_request", "--url must be an http:// or https:// URL.");
  }
  return value.replace(/\/+$/, "");
}

export function register(program: Command, context: CliContext): void {
  program
    .command("console")
    .description("print a one-time sign-in link to the owner web console (grants, access log, connections)")
    .option("--url <url>", "the URL `pdpp serve` answers at (its --public-url when set)", DEFAULT_CONSOLE_URL)
    .action(async (options: { url: string }) => {
      const home = context.home;
      if (!readOwnerToken(home)) {
        throw new PdppError(
          "invalid_request",
          `no pdpp home at ${home} (missing ${homePaths(home).ownerToken}); run \`pdpp init\` first or pass --home.`,
        );
      }
      const base = baseUrl(options.url);
      const opened = await openStoreAt(home, { databaseUrl: context.databaseUrl });
      let token: string;
      try {
        token = await createSignInLink(opened.store);
      } finally {
        await opened.close();
      }
      const minutes = Math.round(SIGNIN_LINK_TTL_MS / 60_000);
      process.stdout.write(
        [
          `one-time sign-in link (works once, for ${minutes} minutes; needs \`pdpp serve\` running on this home):`,
          `${base}/signin/link?token=${token}`,
          "",
        ].join("\n"),
      );
    });
}
