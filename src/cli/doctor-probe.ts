// Connect to one configured MCP server (stdio or Streamable HTTP) and list its tools, with a timeout.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ConfiguredServer } from "./doctor-config.js";

export type ProbeResult =
  | { name: string; ok: true; tools: string[]; serverName?: string }
  | { name: string; ok: false; error: string };

export async function probeServer(
  server: ConfiguredServer,
  options: { timeoutMs: number },
): Promise<ProbeResult> {
  const stderrTail: string[] = [];
  let transport: Transport;
  if (server.transport === "stdio") {
    const stdio = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: { ...getDefaultEnvironment(), ...server.env },
      cwd: server.cwd,
      stderr: "pipe",
    });
    // Keep the last stderr line: it usually says why a server failed to start.
    stdio.stderr?.on("data", (chunk: Buffer) => {
      const lines = chunk
        .toString("utf8")
        .split("\n")
        .filter((l) => l.trim().length > 0);
      stderrTail.push(...lines);
      stderrTail.splice(0, Math.max(0, stderrTail.length - 3));
    });
    transport = stdio;
  } else {
    transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: server.headers },
    });
  }
  const client = new Client({ name: "pdpp-doctor", version: "1" });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
  });
  try {
    await Promise.race([client.connect(transport), timeout]);
    const tools: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await Promise.race([client.listTools(cursor ? { cursor } : {}), timeout]);
      tools.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor);
    return { name: server.name, ok: true, tools, serverName: client.getServerVersion()?.name };
  } catch (error) {
    const why = explainFailure(server, (error as Error).message.replace(/\s*\n\s*/g, " "));
    const tail = stderrTail.length > 0 ? ` (stderr: ${stderrTail[stderrTail.length - 1].slice(0, 200)})` : "";
    return { name: server.name, ok: false, error: `${why}${tail}` };
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => undefined);
  }
}

/** The SDK's and Node's wording of the usual start-up failures, said the way a user would. */
export function explainFailure(server: ConfiguredServer, message: string): string {
  if (server.transport === "stdio") {
    if (/\bENOENT\b/.test(message)) return `command not found: ${server.command}`;
    if (/\bEACCES\b/.test(message)) return `command is not executable: ${server.command}`;
    if (/Connection closed/.test(message)) return "the server exited before answering";
  }
  return message;
}
