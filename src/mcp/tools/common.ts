// Argument pieces shared by several tools (typed filter, connection_id, fields) and their checks.
import { z } from "zod";
import { headUnits } from "../../core/clip-text.js";
import { PdppError } from "../../core/errors.js";
import { isFieldPath, requireSafeName } from "../../core/ids.js";
import { FILTER_OPS } from "../../core/render/filter.js";

export const connectionIdArg = z
  .string()
  .describe("cin_… from schema; needed when a stream has several connections");
export const streamArg = z.string().min(1).describe("name or connector_key:name");
/**
 * A condition's value: a string the RS coerces by the field's declared type. A JSON number or
 * boolean (what a model writes for an integer or boolean field) is taken as its decimal/`true`
 * text; the published schema stays `type: "string"` (portable: no type arrays or anyOf).
 */
const filterValue = z.preprocess(
  (v) => (typeof v === "number" || typeof v === "boolean" ? String(v) : v),
  z.string(),
);
export const filterArg = z
  .array(
    z.strictObject({
      field: z.string(),
      op: z.enum(FILTER_OPS),
      value: filterValue,
    }),
  )
  .describe("conditions, ANDed");
export const fieldsArg = z.array(z.string()).describe("only these fields (plus identity)");

export function checkStream(stream: string): string {
  return requireSafeName(stream, "stream", { code: "invalid_request", param: "stream" });
}

export function checkFields(fields: string[] | undefined): string[] | undefined {
  if (fields === undefined) return undefined;
  if (fields.length === 0)
    throw new PdppError("invalid_request", "fields must name at least one field; omit it for all.", {
      param: "fields",
    });
  for (const f of fields) {
    if (!isFieldPath(f)) {
      throw new PdppError(
        "invalid_request",
        `fields: "${headUnits(f, 64)}" is not a field path; use names from schema(stream).`,
        {
          param: "fields",
        },
      );
    }
  }
  return fields;
}
