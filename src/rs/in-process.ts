// The in-process entrance to the RS app: the MCP adapter's calls go to app.fetch with a context
// object that only code in this process can create (a module-private symbol key in hono's env),
// so the access log can trust its tool label; no HTTP client can forge it with a header.
import type { Context } from "hono";

const IN_PROCESS = Symbol("pdpp.rs.in-process");

export interface InProcessCall {
  /** The MCP tool (or resource) this call serves; the access log records `mcp:<tool>`. */
  tool: string;
  /** false for the adapter's own bookkeeping (schema-cache fills): the tool's own read is logged. */
  logged: boolean;
  /** Set by sendJson: the answer object, so the adapter need not parse its own RS's JSON. */
  answer?: { body: unknown };
  /** Several reads of one tool call that make one access-log row (see AccessLogSlot). */
  slot?: AccessLogSlot;
}

/**
 * One access-log row for a tool call that reads the same route more than once (search retried at
 * smaller limits to fit its result budget): each read's row replaces the one before, and the tool
 * writes the last one with commit() when it is done, so one tool call is one row.
 */
export class AccessLogSlot {
  private write: (() => Promise<void>) | undefined;

  hold(write: () => Promise<void>): void {
    this.write = write;
  }

  async commit(): Promise<void> {
    const write = this.write;
    this.write = undefined;
    await write?.();
  }
}

export type InProcessEnv = { readonly [IN_PROCESS]: InProcessCall };

export function inProcessEnv(call: InProcessCall): InProcessEnv {
  return { [IN_PROCESS]: call };
}

/** The in-process call context of this request, or undefined for every request from the network. */
export function inProcessCall(c: Context): InProcessCall | undefined {
  const env = c.env as Partial<InProcessEnv> | undefined;
  return env && typeof env === "object" ? env[IN_PROCESS] : undefined;
}
