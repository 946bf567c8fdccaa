// `pdpp demo`: a working store with sample data, a grant, a server and paste-ready client setup.
import type { Command } from "commander";
import { PdppError } from "../../core/errors.js";
import type { CliContext } from "../context.js";

export function register(program: Command, _context: CliContext): void {
  program
    .command("demo")
    .description("set up a demo store with sample data, a grant and a server; print MCP client setup")
    .option("--port <port>", "port for the demo server (0 picks a free one)", "7662")
    .option("--no-serve", "set up and print the setup without starting the server")
    .action(async () => {
      throw new PdppError("invalid_request", "pdpp demo is not available yet.");
    });
}
