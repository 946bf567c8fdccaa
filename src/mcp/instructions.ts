// The server `instructions` (≤ 1,200 chars; the first 512 carry what every agent must know).
export const INSTRUCTIONS = [
  "pdpp: read-only access to the personal data its owner granted you.",
  "1. Start with `schema` (the index of streams and connections), then `schema(stream)` for fields and what each supports.",
  "2. Pass `connection_id` when a stream has several connections or an error says retry_with connection_id.",
  '3. Filters are typed: filter=[{"field","op":eq|gt|gte|lt|lte,"value"}].',
  "4. Page with `cursor` (next_cursor as-is); narrow with `fields` and `limit`.",
  "5. Long text is cut to previews: read it whole with `read_record_field` (id + field_path, follow next_cursor).",
  "`search` finds records across streams; pass a hit's id as-is to `fetch`. `aggregate` counts, sums and groups without reading records. Every result states has_more, next_cursor and the exact arguments to continue; ids are printed whole, copy them exactly.",
].join("\n");
