// Helpers shared by the owner routes: zod body parsing into a typed 400, the connection id path
// segment, and the (unpaged) list envelope owner listings answer with.
import type { z } from "zod";
import { invalidRequest } from "../../core/errors.js";
import { connectionNotFound } from "../../core/grant-scope.js";
import { isConnectionId } from "../../core/ids.js";
import type { ListEnvelope } from "../../core/wire.js";

/** zod failure → 400 invalid_request naming the first bad member. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue.path.join(".") || "body";
  throw invalidRequest(`${path}: ${issue.message}.`, path);
}

/** A `{id}` path segment that cannot be a connection id is simply not found. */
export function checkConnectionId(id: string): string {
  if (!isConnectionId(id)) throw connectionNotFound();
  return id;
}

/** Owner listings are small and complete: one page, no cursor. */
export function ownerList<T>(data: T[]): ListEnvelope<T> {
  return { object: "list", data, has_more: false, next_cursor: null, meta: { warnings: [] } };
}
