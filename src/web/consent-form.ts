// The consent form's logic (pure): what it starts with (everything, or the streams the client's
// scope names) and how a posted form becomes a grant: only streams, connections and fields that
// exist and were ticked, stored as the explicit lists the owner saw, unless the owner also chose
// to share what is added later (then everything ticked is stored as "all").
import type { CatalogStream } from "./catalog.js";
import type { GrantInput } from "./consent-backend.js";

export const EXPIRY_CHOICES = ["1", "7", "30", "90", "never"] as const;
export const DEFAULT_EXPIRY_DAYS = "90";

/** The streams the requested scope names (connector:stream or a bare stream name); OAuth words such as `openid` name none. */
export function suggestedStreams(catalog: CatalogStream[], requestedScope: string | null): CatalogStream[] {
  const words = new Set((requestedScope ?? "").split(/\s+/).filter((w) => w.length > 0));
  return catalog.filter((s) => words.has(s.label) || words.has(s.stream));
}

/** Stream keys to pre-select: those the requested scope names, else all. */
export function prefilledStreams(catalog: CatalogStream[], requestedScope: string | null): Set<string> {
  const named = suggestedStreams(catalog, requestedScope);
  return new Set((named.length > 0 ? named : catalog).map((s) => s.key));
}

export type ConsentChoice = { ok: true; grant: GrantInput } | { ok: false; error: string };

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

function dateBound(value: string | null, name: string): { iso: string | null } | { error: string } {
  if (value === null || value.trim() === "") return { iso: null };
  const v = value.trim();
  if (!DATE_RE.test(v) || Number.isNaN(Date.parse(`${v}T00:00:00Z`)))
    return { error: `${name} must be a date (YYYY-MM-DD).` };
  return { iso: new Date(`${v}T00:00:00Z`).toISOString() };
}

/** Turn the posted consent form into a grant for `clientName`, or say what is wrong with it. */
export function grantFromForm(
  catalog: CatalogStream[],
  form: URLSearchParams,
  options: { clientName: string; redirectHost: string; now: Date },
): ConsentChoice {
  const since = dateBound(form.get("since"), "Since");
  if ("error" in since) return { ok: false, error: since.error };
  const until = dateBound(form.get("until"), "Until");
  if ("error" in until) return { ok: false, error: until.error };
  if (since.iso && until.iso && since.iso >= until.iso)
    return { ok: false, error: "Since must be before until." };
  const timeRange = since.iso || until.iso ? { since: since.iso, until: until.iso } : null;

  const chosen = new Set(form.getAll("stream"));
  const future = form.get("future") === "yes";
  const streams: GrantInput["streams"] = [];
  for (const entry of catalog) {
    if (!chosen.has(entry.key)) continue;
    const ids = new Set(form.getAll(`conn:${entry.key}`));
    const connections = entry.connections.map((c) => c.connection_id).filter((id) => ids.has(id));
    if (connections.length === 0)
      return { ok: false, error: `Pick at least one connection for ${entry.label}.` };
    const names = new Set(form.getAll(`field:${entry.key}`));
    const fields = entry.fields.filter((f) => names.has(f));
    if (fields.length === 0) return { ok: false, error: `Pick at least one field for ${entry.label}.` };
    streams.push({
      stream: entry.stream,
      connector_key: entry.connectorKey,
      // Exactly what was shown and ticked; "all" (what is added later too) only when asked for.
      connections: future && connections.length === entry.connections.length ? "all" : connections,
      fields: future && fields.length === entry.fields.length ? "all" : fields,
      time_range: timeRange,
    });
  }
  if (streams.length === 0) return { ok: false, error: "Pick at least one stream, or deny the request." };

  const expiry = form.get("expires") ?? DEFAULT_EXPIRY_DAYS;
  if (!(EXPIRY_CHOICES as readonly string[]).includes(expiry)) return { ok: false, error: "Pick an expiry." };
  const expiresAt =
    expiry === "never" ? null : new Date(options.now.getTime() + Number(expiry) * 86_400_000).toISOString();
  return {
    ok: true,
    grant: {
      client_name: options.clientName.slice(0, 100),
      purpose: `approved on the consent page for ${options.redirectHost}`,
      expires_at: expiresAt,
      streams,
    },
  };
}

/** What the form shows ticked: the defaults, or exactly what was posted (re-shown with an error). */
export interface ConsentSelection {
  streams: Set<string>;
  connections: (key: string) => Set<string>;
  fields: (key: string) => Set<string>;
  since: string;
  until: string;
  expires: string;
  /** Also share connections and fields added later. */
  future: boolean;
}

export function defaultSelection(catalog: CatalogStream[], requestedScope: string | null): ConsentSelection {
  const byKey = new Map(catalog.map((s) => [s.key, s]));
  return {
    streams: prefilledStreams(catalog, requestedScope),
    connections: (key) => new Set(byKey.get(key)?.connections.map((c) => c.connection_id) ?? []),
    fields: (key) => new Set(byKey.get(key)?.fields ?? []),
    since: "",
    until: "",
    expires: DEFAULT_EXPIRY_DAYS,
    future: false,
  };
}

export function postedSelection(form: URLSearchParams): ConsentSelection {
  return {
    streams: new Set(form.getAll("stream")),
    connections: (key) => new Set(form.getAll(`conn:${key}`)),
    fields: (key) => new Set(form.getAll(`field:${key}`)),
    since: form.get("since") ?? "",
    until: form.get("until") ?? "",
    expires: form.get("expires") ?? DEFAULT_EXPIRY_DAYS,
    future: form.get("future") === "yes",
  };
}
