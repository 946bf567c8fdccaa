// 2025-era answers as pdpp gave them before SDK v2. The SDK sends -32602 for a resource not found
// on every revision (2026-07-28 moved it from -32002); a 2025-era client (its requests carry no
// per-request protocol-version envelope) gets -32002 back, as the v1 SDK served it. 2026-07-28
// requests keep the SDK's answers. server.ts puts LegacyAnswersTransport under every connection of
// a pdpp server (stdio, hosted 2025 dispatch, in-memory) but the SDK's per-request 2026 one.
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type JSONRPCRequest,
  PROTOCOL_VERSION_META_KEY,
  type Transport,
} from "@modelcontextprotocol/server";

/** MCP 2025-11-25 and earlier: resources/read of a resource that does not exist. */
export const LEGACY_RESOURCE_NOT_FOUND = -32002;

/** A request from a 2025-era client: no 2026-07-28 envelope claim in its _meta. */
export function isLegacyEraRequest(request: JSONRPCRequest): boolean {
  return request.params?._meta?.[PROTOCOL_VERSION_META_KEY] === undefined;
}

/** Whether the answer to `request` must be rewritten for a 2025-era client. */
function needsLegacyAnswer(request: JSONRPCRequest): boolean {
  return request.method === "resources/read" && isLegacyEraRequest(request);
}

/**
 * The answer a 2025-era client got before SDK v2: a resources/read error whose RS status was 404
 * (data.type not_found_error, server.ts) is -32002 again; everything else is unchanged.
 */
export function toLegacyAnswer(request: JSONRPCRequest, answer: JSONRPCMessage): JSONRPCMessage {
  if (!needsLegacyAnswer(request) || !isJSONRPCErrorResponse(answer)) return answer;
  const data = answer.error.data as { type?: unknown } | undefined;
  if (answer.error.code !== -32602 || data?.type !== "not_found_error") return answer;
  return { ...answer, error: { ...answer.error, code: LEGACY_RESOURCE_NOT_FOUND } };
}

/**
 * A connection's transport that applies toLegacyAnswer to the answers of 2025-era resources/read
 * requests (tracked by id while in flight); every other message passes through untouched.
 */
export class LegacyAnswersTransport implements Transport {
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  onmessage?: Transport["onmessage"];
  setProtocolVersion?: Transport["setProtocolVersion"];
  setSupportedProtocolVersions?: Transport["setSupportedProtocolVersions"];
  private readonly inFlight = new Map<string | number, JSONRPCRequest>();

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  get hasPerRequestStream(): boolean | undefined {
    return this.inner.hasPerRequestStream;
  }

  constructor(private readonly inner: Transport) {
    if (inner.setProtocolVersion) this.setProtocolVersion = (v) => inner.setProtocolVersion?.(v);
    if (inner.setSupportedProtocolVersions) {
      this.setSupportedProtocolVersions = (v) => inner.setSupportedProtocolVersions?.(v);
    }
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      if (isJSONRPCRequest(message) && needsLegacyAnswer(message)) this.inFlight.set(message.id, message);
      this.onmessage?.(message, extra);
    };
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: Parameters<Transport["send"]>[1]): Promise<void> {
    const id = "id" in message ? message.id : undefined;
    const request = id === undefined || id === null ? undefined : this.inFlight.get(id);
    if (request === undefined || !("error" in message || "result" in message)) {
      return this.inner.send(message, options);
    }
    this.inFlight.delete(request.id);
    return this.inner.send(toLegacyAnswer(request, message), options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
