// Turn `pdpp grant create` flags into the owner API's grant request (pure, unit-tested).
import { PdppError } from "../core/errors.js";
import type { GrantStream } from "../core/grant.js";
import { isConnectionId, isConnectorKey, isFieldPath, isStreamName } from "../core/ids.js";

export interface GrantFlags {
  client: string;
  stream: string[];
  connections?: string;
  fields?: string;
  since?: string;
  until?: string;
  expires?: string;
  purpose?: string;
}

export interface GrantRequest {
  client_name: string;
  purpose: string;
  expires_at: string | null;
  streams: GrantStream[];
}

export function buildGrantRequest(flags: GrantFlags): GrantRequest {
  if (!flags.client || flags.client.trim().length === 0)
    throw usage("--client needs a client name, e.g. claude-desktop.");
  if (!flags.stream || flags.stream.length === 0) {
    throw usage("pass at least one --stream <connector_key>:<stream>, e.g. --stream mbox:messages.");
  }
  const connections = parseConnections(flags.connections);
  const fields = parseFields(flags.fields);
  const since = parseTime(flags.since, "--since");
  const until = parseTime(flags.until, "--until");
  if (since && until && since >= until) throw usage("--since must be before --until.");
  const seen = new Set<string>();
  const streams = flags.stream.map((spec): GrantStream => {
    const [connectorKey, stream, extra] = spec.split(":");
    if (
      extra !== undefined ||
      !connectorKey ||
      !stream ||
      !isConnectorKey(connectorKey) ||
      !isStreamName(stream)
    ) {
      throw usage(`--stream "${spec}" must look like <connector_key>:<stream>, e.g. mbox:messages.`);
    }
    if (seen.has(spec)) throw usage(`--stream ${spec} is given twice.`);
    seen.add(spec);
    return {
      stream,
      connector_key: connectorKey,
      connections,
      fields,
      time_range: since || until ? { since, until } : null,
    };
  });
  return {
    client_name: flags.client.trim(),
    purpose: flags.purpose ?? "",
    expires_at: parseTime(flags.expires, "--expires"),
    streams,
  };
}

function parseConnections(value: string | undefined): string[] | "all" {
  if (value === undefined || value === "all") return "all";
  const ids = splitList(value);
  for (const id of ids) {
    if (!isConnectionId(id))
      throw usage(
        `--connections: "${id}" is not a connection id (cin_ + 12 hex); see pdpp connections list.`,
      );
  }
  if (ids.length === 0) throw usage('--connections needs "all" or a comma list of connection ids.');
  return ids;
}

function parseFields(value: string | undefined): string[] | "all" {
  if (value === undefined || value === "all") return "all";
  const fields = splitList(value);
  for (const field of fields) {
    if (!isFieldPath(field))
      throw usage(`--fields: "${field}" is not a field path like subject or sender.email.`);
  }
  if (fields.length === 0) throw usage('--fields needs "all" or a comma list of field paths.');
  return fields;
}

/** An ISO-8601 date or date-time, normalised to UTC ISO; undefined stays null. */
export function parseTime(value: string | undefined, flag: string): string | null {
  if (value === undefined) return null;
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms))
    throw usage(`${flag} must be an ISO-8601 date or date-time, e.g. 2024-01-01, got "${value}".`);
  return new Date(ms).toISOString();
}

function splitList(value: string): string[] {
  return value
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

function usage(message: string): PdppError {
  return new PdppError("invalid_request", message);
}
