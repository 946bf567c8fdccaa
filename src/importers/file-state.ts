// What earlier imports of log directories saw, per connection: each file's size, mtime and digest, the
// records it yielded and its sessions' summaries, so an unchanged file is skipped without being read.
//
// Kept as one JSON file per connection under <home>/import-state/ rather than in the store: the store
// has no key/value table, the state is a cache (losing it only costs a full re-read, which the store's
// digests make a no-op), and it is bound to the connection it describes by id AND creation time, so a
// recreated database or a deleted-and-reimported connection never inherits a stale "already read".
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { OwnerApi } from "./owner-sink.js";
import type { SessionSummary } from "./session-summary.js";
import type { ImportRejection } from "./types.js";

export interface FileEntry {
  size: number;
  mtimeMs: number;
  /** sha256 of the file's bytes, hex. */
  digest: string;
  /** Records the file yielded per stream (sessions excluded: they are rebuilt from `sessions`). */
  records: Record<string, number>;
  sessions: SessionSummary[];
  /** What of the file was rejected when it was read (the first MAX_FILE_REJECTIONS, and the count). */
  rejected?: number;
  rejections?: ImportRejection[];
}

/** Rejections kept per file in the state (the count is always exact). */
export const MAX_FILE_REJECTIONS = 20;

interface StateDocument {
  /** The reader's format version: a reader that changes its records invalidates older state. */
  format: string;
  connection_id: string;
  connection_created_at: string;
  files: Record<string, FileEntry>;
}

export interface FileStateHandle {
  /** What the last import into this connection saw, by absolute path (empty when nothing valid). */
  files: Map<string, FileEntry>;
  connectionId: string | null;
  /** Write `files` as the new state (call only after every batch of the import is committed). */
  save(files: Map<string, FileEntry>): Promise<void>;
}

export interface FileStateOptions {
  api: OwnerApi;
  stateDir: string;
  connectorKey: string;
  connectionLabel: string;
  format: string;
}

/** Load the state of the connection (connector, label); an absent or stale state is an empty one. */
export async function openFileState(options: FileStateOptions): Promise<FileStateHandle> {
  const labelHash = createHash("sha256").update(options.connectionLabel).digest("hex").slice(0, 16);
  const path = join(options.stateDir, `${options.connectorKey}-${labelHash}.json`);
  const connection = await findConnection(options.api, options.connectorKey, options.connectionLabel);
  let files = new Map<string, FileEntry>();
  if (connection) {
    const doc = await readState(path);
    if (
      doc &&
      doc.format === options.format &&
      doc.connection_id === connection.connection_id &&
      doc.connection_created_at === connection.created_at
    ) {
      files = new Map(Object.entries(doc.files));
    }
  }
  return {
    files,
    connectionId: connection?.connection_id ?? null,
    async save(next) {
      // The connection exists by now (it was opened by the import's first batch) unless nothing was stored.
      const current =
        connection ?? (await findConnection(options.api, options.connectorKey, options.connectionLabel));
      if (!current) return;
      const doc: StateDocument = {
        format: options.format,
        connection_id: current.connection_id,
        connection_created_at: current.created_at,
        files: Object.fromEntries(next),
      };
      await mkdir(options.stateDir, { recursive: true, mode: 0o700 });
      // Write then rename: a crash mid-write leaves the old state, never a torn one.
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify(doc), { mode: 0o600 });
      await rename(temporary, path);
    },
  };
}

async function readState(path: string): Promise<StateDocument | null> {
  try {
    const doc = JSON.parse(await readFile(path, "utf8")) as StateDocument;
    return doc && typeof doc === "object" && doc.files && typeof doc.files === "object" ? doc : null;
  } catch {
    return null; // absent or damaged: read everything again
  }
}

export interface ConnectionRow {
  connection_id: string;
  connector_key: string;
  display_name: string;
  created_at: string;
}

/** The connection of (connector, label) as the owner API lists it, or null when there is none yet. */
export async function findConnection(
  api: OwnerApi,
  connectorKey: string,
  label: string,
): Promise<ConnectionRow | null> {
  const response = await api.fetch(
    new Request(new URL("/v1/owner/connections", api.baseUrl), {
      headers: { authorization: `Bearer ${api.ownerToken}` },
    }),
  );
  if (!response.ok) return null; // no state rather than a failed import: the state is only a cache
  const answer = (await response.json()) as { data: ConnectionRow[] };
  return answer.data.find((c) => c.connector_key === connectorKey && c.display_name === label) ?? null;
}
