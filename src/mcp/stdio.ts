// `pdpp mcp`: the adapter over stdio. stdout carries only JSON-RPC; diagnostics go to stderr.
// It runs with a client token only: an owner token (by prefix, by introspection, or anywhere in
// the environment) makes it exit 77 without retrying with other credentials.
import {
  isJSONRPCRequest,
  type JSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
  UnsupportedProtocolVersionError,
} from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import { readCredentials } from "../config/credentials.js";
import { readSecretFile } from "../config/secret-file.js";
import { isPdppError, PdppError } from "../core/errors.js";
import { OWNER_TOKEN_PREFIX } from "../core/ids.js";
import type { TokenAnswer } from "../core/wire.js";
import { FetchRsClient, InProcessRsClient, type RsAppFetch, type RsClient } from "./rs-client.js";
import { StreamSchemaCache } from "./schema-cache.js";
import { createPdppMcpServer } from "./server.js";

export const EXIT_OWNER_TOKEN_REFUSED = 77;
export const EXIT_USER_ERROR = 1;
const IN_PROCESS_URL = "http://127.0.0.1";

export interface StdioMcpOptions {
  providerUrl?: string;
  tokenFile?: string;
  /** In-process RS (`--store`): requests go to the app's own fetch instead of the network. */
  rsFetch?: RsAppFetch;
  env?: NodeJS.ProcessEnv;
  stderr?: (line: string) => void;
  /** Injected for tests; defaults to process stdin/stdout. */
  transport?: Transport;
}

/** Outcome of the start-up checks: a ready configuration, or an exit code with one stderr line. */
export type StdioStart =
  | { ok: true; token: string; baseUrl: string; rs: RsClient }
  | { ok: false; exitCode: number; message: string };

/** Names of environment variables that hold an owner token (values are never printed). */
export function ownerTokenEnvVars(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([, value]) => typeof value === "string" && value.includes(OWNER_TOKEN_PREFIX))
    .map(([name]) => name);
}

/**
 * True when a --token-file holds an owner token anywhere (as a credentials file's token or as the
 * bare token): that is a refusal (77), not a malformed file (1). Unreadable files answer false
 * and are reported by the credentials reader.
 */
export function tokenFileHoldsOwnerToken(path: string): boolean {
  try {
    return (readSecretFile(path) ?? "").includes(OWNER_TOKEN_PREFIX);
  } catch {
    return false;
  }
}

export async function prepareStdio(options: StdioMcpOptions): Promise<StdioStart> {
  const env = options.env ?? process.env;
  const refuse = (message: string): StdioStart => ({
    ok: false,
    exitCode: EXIT_OWNER_TOKEN_REFUSED,
    message,
  });
  const owners = ownerTokenEnvVars(env);
  if (owners.length > 0) {
    return refuse(
      `pdpp mcp: refusing to start: an owner token is present in the environment (${owners.join(", ")}); unset it and use a client token.`,
    );
  }
  if (options.tokenFile && tokenFileHoldsOwnerToken(options.tokenFile)) {
    return refuse(
      `pdpp mcp: refusing --token-file ${options.tokenFile}: it holds an owner token; save a client token with \`pdpp grant create --save\` and pass that file.`,
    );
  }
  let token = env.PDPP_TOKEN;
  let providerUrl = options.providerUrl ?? env.PDPP_PROVIDER_URL;
  if (!token && options.tokenFile) {
    try {
      const creds = readCredentials(options.tokenFile);
      token = creds.token;
      providerUrl ??= creds.provider_url;
    } catch (error) {
      return {
        ok: false,
        exitCode: EXIT_USER_ERROR,
        message: `pdpp mcp: ${isPdppError(error) ? error.message : String(error)}`,
      };
    }
  }
  if (!token) {
    return {
      ok: false,
      exitCode: EXIT_USER_ERROR,
      message: "pdpp mcp: no client token: set PDPP_TOKEN or pass --token-file (pdpp grant create --save).",
    };
  }
  if (token.startsWith(OWNER_TOKEN_PREFIX)) {
    return refuse(
      "pdpp mcp: refusing the owner token; create a client token with `pdpp grant create` and use that.",
    );
  }
  let rs: RsClient;
  let baseUrl: string;
  if (options.rsFetch) {
    baseUrl = IN_PROCESS_URL;
    rs = new InProcessRsClient(options.rsFetch, token, baseUrl);
  } else if (providerUrl) {
    baseUrl = providerUrl;
    rs = new FetchRsClient((request) => fetch(request), { token, baseUrl });
  } else {
    return {
      ok: false,
      exitCode: EXIT_USER_ERROR,
      message: "pdpp mcp: no provider: pass --provider-url, set PDPP_PROVIDER_URL, or pass --store <dir>.",
    };
  }
  try {
    const me = await rs.get<TokenAnswer>({ tool: "token", path: "/v1/token" });
    if (me.kind === "owner")
      return refuse("pdpp mcp: refusing the owner token (the server says so); use a client token.");
  } catch (error) {
    const why =
      error instanceof PdppError
        ? `${error.code}: ${error.message}`
        : `cannot reach ${baseUrl}: ${(error as Error).message}`;
    return { ok: false, exitCode: EXIT_USER_ERROR, message: `pdpp mcp: ${why}` };
  }
  return { ok: true, token, baseUrl, rs };
}

/** The revision a stdio connection may be pinned to besides the 2025 ones. */
const MODERN_VERSIONS = ["2026-07-28"];

/**
 * Every 2026-07-28 request names its protocol version, and a server must refuse one it does not
 * speak (UnsupportedProtocolVersionError) request by request. The SDK's stdio entry checks only a
 * connection's opening message, so this transport answers a later request naming an unknown
 * version itself, before it reaches the pinned server.
 */
class VersionCheckedTransport implements Transport {
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  onmessage?: Transport["onmessage"];

  constructor(private readonly inner: Transport) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      const requested = isJSONRPCRequest(message)
        ? message.params?._meta?.[PROTOCOL_VERSION_META_KEY]
        : undefined;
      const known = [...MODERN_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];
      if (!isJSONRPCRequest(message) || requested === undefined || known.includes(String(requested))) {
        this.onmessage?.(message, extra);
        return;
      }
      const error = new UnsupportedProtocolVersionError({
        supported: MODERN_VERSIONS,
        requested: String(requested),
      });
      const answer = {
        jsonrpc: "2.0",
        id: message.id,
        error: { code: error.code, message: error.message, data: error.data },
      };
      void inner.send(answer as JSONRPCMessage).catch((e: Error) => this.onerror?.(e));
    };
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(...args: Parameters<Transport["send"]>): Promise<void> {
    return this.inner.send(...args);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * One stderr line per error. A line of input that is no JSON-RPC message is ignored (no answer, as
 * before SDK v2); the SDK reports it with its validator's whole issue list, many lines of JSON.
 */
function oneLine(error: Error): string {
  const text = error.name === "ZodError" ? "ignored a line that is not a JSON-RPC message" : error.message;
  return text.replace(/\s*\n\s*/g, " ");
}

/** Start the stdio server; resolves with an exit code only when start-up is refused. */
export async function runStdioMcp(options: StdioMcpOptions = {}): Promise<number | null> {
  const stderr = options.stderr ?? ((line: string) => process.stderr.write(`${line}\n`));
  const start = await prepareStdio(options);
  if (!start.ok) {
    stderr(start.message);
    return start.exitCode;
  }
  // In-process (`--store`) there is no URL a reader could open: documents carry pdpp:// URIs.
  const providerUrl = options.rsFetch ? null : start.baseUrl;
  const schemas = new StreamSchemaCache();
  // Both eras: the opening message pins the connection to a 2025 (initialize) or a 2026-07-28
  // (per-request envelope) server from this factory; a server/discover probe gets one of its own.
  serveStdio(() => createPdppMcpServer({ rs: start.rs, providerUrl, schemas }), {
    transport: new VersionCheckedTransport(options.transport ?? new StdioServerTransport()),
    onerror: (error) => stderr(`pdpp mcp: ${oneLine(error)}`),
  });
  return null;
}
