// The one typed error of pdpp: a closed set of codes, each with its HTTP status and type (20-rs-api.md).

export const ERROR_CODES = {
  // 400
  invalid_request: 400,
  invalid_filter: 400,
  invalid_cursor: 400,
  invalid_id: 400,
  unsupported_query: 400,
  invalid_field_window_selector: 400,
  conflicting_connection_id: 400,
  limit_exceeded: 400,
  // 401
  missing_token: 401,
  invalid_token: 401,
  token_expired: 401,
  // 403
  field_not_granted: 403,
  grant_revoked: 403,
  owner_token_refused: 403,
  owner_only: 403,
  invalid_host: 403,
  // 404
  stream_not_found: 404,
  record_not_found: 404,
  connection_not_found: 404,
  connector_not_found: 404,
  grant_not_found: 404,
  authorization_not_found: 404,
  route_not_found: 404,
  // 405
  method_not_allowed: 405,
  // 409
  ambiguous_connection: 409,
  ambiguous_stream: 409,
  stale_cursor: 409,
  // 413 / 414 / 422
  payload_too_large: 413,
  uri_too_long: 414,
  field_not_text: 422,
  field_not_binary: 422,
  manifest_invalid: 422,
  // 500: only for bugs; the message is never the internal one.
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export type ErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "conflict_error"
  | "api_error";

export function errorTypeForStatus(status: number): ErrorType {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 409) return "conflict_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

/** Extra members of the error envelope (e.g. `retry_with`, `available_connections`). */
export type ErrorDetails = Record<string, unknown>;

export class PdppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: ErrorType;
  readonly param?: string;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, options: { param?: string; details?: ErrorDetails } = {}) {
    super(message);
    this.name = "PdppError";
    this.code = code;
    this.status = ERROR_CODES[code];
    this.type = errorTypeForStatus(this.status);
    this.param = options.param;
    this.details = options.details ?? {};
  }

  /** The `error` member of the wire envelope (request_id is added by the HTTP layer). */
  toBody(requestId?: string): ErrorBody {
    return {
      type: this.type,
      code: this.code,
      message: this.message,
      ...(requestId ? { request_id: requestId } : {}),
      ...(this.param ? { param: this.param } : {}),
      ...this.details,
    };
  }
}

export interface ErrorBody {
  type: ErrorType;
  code: string;
  message: string;
  request_id?: string;
  param?: string;
  retry_with?: string;
  [key: string]: unknown;
}

export function isPdppError(value: unknown): value is PdppError {
  return value instanceof PdppError;
}

/** Shorthand for the most common 400. */
export function invalidRequest(message: string, param?: string): PdppError {
  return new PdppError("invalid_request", message, { param });
}
