// The `pdpp` commander program: global options, every command registered, and the one place
// where errors become a single `pdpp: <message>` line and an exit code.
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { isPdppError } from "../core/errors.js";
import { register as registerAudit } from "./commands/audit.js";
import { register as registerConnections } from "./commands/connections.js";
import { register as registerConsole } from "./commands/console.js";
import { register as registerDemo } from "./commands/demo.js";
import { register as registerDoctor } from "./commands/doctor.js";
import { register as registerGrant } from "./commands/grant.js";
import { register as registerImport } from "./commands/import.js";
import { register as registerInit } from "./commands/init.js";
import { register as registerMcp } from "./commands/mcp.js";
import { register as registerOwner } from "./commands/owner.js";
import { register as registerServe } from "./commands/serve.js";
import { createCliContext } from "./context.js";

/** Exit codes: 1 for usage and user errors; 77 when an owner token is refused (`pdpp mcp`). */
export const EXIT_USER_ERROR = 1;
export const EXIT_OWNER_TOKEN_REFUSED = 77;

export function packageVersion(): string {
  const path = new URL("../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
}

export function buildProgram(): Command {
  const program = new Command("pdpp");
  program
    .description("Personal-data server with a grant-scoped MCP adapter.")
    .version(packageVersion(), "-V, --version", "print the pdpp version")
    .option("--home <dir>", "pdpp home directory (default: $PDPP_HOME or ./.pdpp)")
    .option(
      "--database <url>",
      'database: "sqlite" or a postgres:// URL (default: $PDPP_DATABASE_URL or config.json)',
    )
    .helpOption("-h, --help", "show help")
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showSuggestionAfterError(true)
    // Settings set here are copied to every subcommand made with program.command().
    .exitOverride()
    .configureOutput({
      outputError: (text, write) => write(`pdpp: ${oneLine(text.replace(/^error: /, ""))}\n`),
    });

  const context = createCliContext(program);
  registerInit(program, context);
  registerServe(program, context);
  registerImport(program, context);
  registerConnections(program, context);
  registerGrant(program, context);
  registerMcp(program);
  registerDemo(program, context);
  registerAudit(program, context);
  registerDoctor(program, context);
  registerConsole(program, context);
  registerOwner(program, context);
  return program;
}

/** Run the CLI on argv; resolves to the process exit code (never throws). */
export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    return reportError(error);
  }
}

function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander has already printed the help, the version or a usage line (through outputError).
    return error.exitCode;
  }
  if (isPdppError(error)) {
    process.stderr.write(`pdpp: ${oneLine(error.message)}\n`);
    return error.code === "owner_token_refused" ? EXIT_OWNER_TOKEN_REFUSED : EXIT_USER_ERROR;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`pdpp: ${oneLine(message)}\n`);
  // Anything that is not a PdppError may be a bug: keep the stack reachable without showing it.
  if (process.env.PDPP_DEBUG && error instanceof Error && error.stack)
    process.stderr.write(`${error.stack}\n`);
  return EXIT_USER_ERROR;
}

/** Collapse a message to one line so every error is exactly one line of stderr. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
