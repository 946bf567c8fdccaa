// `pdpp demo`: a working store with sample data, a grant, a server and paste-ready client setup.
import { resolve } from "node:path";
import type { Command } from "commander";
import { readOwnerToken } from "../../config/owner-token.js";
import { hashToken } from "../../core/ids.js";
import { startServer } from "../../server.js";
import { openStoreAt } from "../../store/open.js";
import { clientSetupSnippets, formatSnippets, PDPP_BIN } from "../client-setup.js";
import type { CliContext } from "../context.js";
import { DEMO_HOME, type DemoSetup, setUpDemo } from "../demo-setup.js";
import { parsePort, waitForSignal } from "./serve.js";

export { PDPP_BIN };

function describeSetup(setup: DemoSetup): string {
  const lines = [`pdpp demo home: ${setup.home}`, "imported (sample data, through the real importers):"];
  for (const r of setup.imports) {
    lines.push(
      `  ${r.connectorKey.padEnd(11)} ${r.connectionLabel.padEnd(14)} ${r.connectionId}  ${r.read} records (added ${r.added}, unchanged ${r.unchanged}, rejected ${r.rejected})`,
    );
  }
  lines.push(
    `grant ${setup.grantId} for ${setup.streams.length} streams (${setup.streams.join(", ")}), all connections and fields`,
    `client token (shown once; keep it secret): ${setup.token}`,
  );
  return lines.join("\n");
}

export function register(program: Command, context: CliContext): void {
  program
    .command("demo")
    .description("set up a demo store with sample data, a grant and a server; print MCP client setup")
    .option("--port <port>", "port for the demo server (0 picks a free one)", "7662")
    .option("--no-serve", "set up and print the setup without starting the server")
    .addHelpText(
      "after",
      `\nThe demo home is --home, else ./${DEMO_HOME} ($PDPP_HOME is not used, so a real home is never filled with samples).`,
    )
    .action(async (options: { port: string; serve: boolean }) => {
      const port = parsePort(options.port);
      const home = resolve(program.opts<{ home?: string }>().home ?? DEMO_HOME);
      const setup = await setUpDemo(home, { databaseUrl: context.databaseUrl });
      const base = { node: process.execPath, bin: PDPP_BIN, home, token: setup.token };
      if (!options.serve) {
        process.stdout.write(
          `${describeSetup(setup)}\n\nConnect an MCP client (stdio runs without a server):\n\n${formatSnippets(clientSetupSnippets(base))}\nhosted MCP: run \`${process.execPath} ${PDPP_BIN} serve --home ${home}\` and use <url>/mcp with the token as bearer\n`,
        );
        return;
      }
      const opened = await openStoreAt(home, { databaseUrl: context.databaseUrl });
      const ownerToken = readOwnerToken(home);
      if (ownerToken) await opened.store.putOwnerToken(hashToken(ownerToken));
      const server = await startServer({ store: opened.store, host: "127.0.0.1", port }).catch(
        async (error) => {
          await opened.close();
          throw error;
        },
      );
      const snippets = clientSetupSnippets({ ...base, mcpUrl: `${server.url}/mcp` });
      process.stdout.write(
        `${describeSetup(setup)}\n\nConnect an MCP client:\n\n${formatSnippets(snippets)}\nserving ${server.url} (rs ${server.url}/v1, mcp ${server.url}/mcp); press Ctrl-C to stop\n`,
      );
      await waitForSignal();
      await server.close();
      await opened.close();
      process.stdout.write("pdpp demo stopped\n");
    });
}
