// A source over a directory of append-only JSONL session logs (Claude Code, Codex): finds the files,
// skips the ones unchanged since the last import into the connection (size and mtime, then digest),
// reads the others line by line, and ends with one `sessions` record per session merged over all files.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { PdppError } from "../core/errors.js";
import type { Manifest } from "../core/manifest.js";
import { type FileEntry, type FileStateHandle, MAX_FILE_REJECTIONS, openFileState } from "./file-state.js";
import { jsonlRecords } from "./jsonl.js";
import { MAX_REPORTED_REJECTIONS } from "./run-import.js";
import { mergeSession, type SessionSummary, sessionRecord } from "./session-summary.js";
import type {
  ImportItem,
  ImportRejection,
  ImportSource,
  ImportSummary,
  IncrementalContext,
  SkippedReport,
} from "./types.js";

/** One JSON object of a log line (or the line's parse error) with its `file:line` position. */
export type LogLine =
  | { data: Record<string, unknown>; position: string }
  | { error: string; position: string };

export interface LogFile {
  path: string;
  /** Path relative to the directory given (what positions and project names use). */
  relative: string;
}

export interface LogFormat {
  manifest: Manifest;
  /** Bump when the records the reader makes change: older state is then ignored and files re-read. */
  format: string;
  /** Which files under the directory are logs (by path relative to it). */
  isLog(relativePath: string): boolean;
  /**
   * The records of one file; fills `sessions` (by session id) with what the file says of each, and
   * `pending` with what only other files can settle (kept with the file's state, given to `settle`).
   */
  readFile(
    lines: AsyncIterable<LogLine>,
    context: { file: LogFile; sessions: Map<string, SessionSummary>; pending: unknown[] },
  ): AsyncIterable<ImportItem>;
  /** Once every file's sessions are known: apply what files left pending to them. */
  settle?(sessions: Map<string, SessionSummary>, pending: unknown[]): void;
  /** Extra session fields taken from the summaries' facts. */
  sessionFacts: readonly string[];
  /** What to tell a user whose directory holds no logs. */
  noLogsHint: string;
}

export async function findLogFiles(
  dir: string,
  isLog: (relativePath: string) => boolean,
): Promise<LogFile[]> {
  const root = resolve(dir);
  let entries: string[];
  try {
    if (!(await stat(root)).isDirectory()) {
      return isLog(root) || root.endsWith(".jsonl") ? [{ path: root, relative: root.split("/").pop()! }] : [];
    }
    entries = await readdir(root, { recursive: true });
  } catch {
    throw new PdppError("invalid_request", `cannot read ${dir}: check that the directory exists.`);
  }
  return entries
    .filter((name) => isLog(name))
    .sort()
    .map((name) => ({ path: join(root, name), relative: relative(root, join(root, name)) }));
}

export async function openLogDirSource(dir: string, format: LogFormat): Promise<ImportSource> {
  const files = await findLogFiles(dir, format.isLog);
  if (files.length === 0) {
    throw new PdppError("invalid_request", `no session logs under ${dir}: ${format.noLogsHint}`);
  }
  const sizes = await Promise.all(files.map((f) => stat(f.path)));
  let state: FileStateHandle | null = null;
  const next = new Map<string, FileEntry>();
  const skipped: SkippedReport = {
    files: 0,
    filesRead: 0,
    rejected: 0,
    rejections: [],
    records: {},
    connectionId: null,
  };
  /** Files read this run, by their relative path (what positions start with). */
  const readNow = new Map<string, string>();
  let bytesRead = 0;

  async function* items(): AsyncGenerator<ImportItem> {
    const sessions = new Map<string, SessionSummary>();
    const pending: unknown[] = [];
    const mergeInto = (found: Iterable<SessionSummary>) => {
      for (const s of found) {
        const known = sessions.get(s.session_id);
        sessions.set(s.session_id, known ? mergeSession(known, s) : s);
      }
    };
    for (const [i, file] of files.entries()) {
      const { size, mtimeMs } = sizes[i]!;
      const previous = state?.files.get(file.path);
      let unchanged = previous !== undefined && previous.size === size && previous.mtimeMs === mtimeMs;
      // Same size, new mtime (touched, copied back): the digest decides. A new size is always a change.
      if (!unchanged && previous !== undefined && previous.size === size) {
        unchanged = (await digestOf(file.path)) === previous.digest;
      }
      if (unchanged && previous) {
        next.set(file.path, { ...previous, mtimeMs });
        mergeInto(previous.sessions);
        pending.push(...(previous.pending ?? []));
        skipped.files++;
        skipped.rejected += previous.rejected ?? 0;
        skipped.rejections.push(...(previous.rejections ?? []));
        for (const [stream, n] of Object.entries(previous.records)) {
          skipped.records[stream] = (skipped.records[stream] ?? 0) + n;
        }
        bytesRead += size;
        continue;
      }
      skipped.filesRead++;
      const hash = createHash("sha256");
      let hashed = 0; // the bytes actually read: a file appended to while read is recorded as read
      const fileSessions = new Map<string, SessionSummary>();
      const filePending: unknown[] = [];
      const records: Record<string, number> = {};
      const chunks = async function* () {
        for await (const chunk of createReadStream(file.path, {
          highWaterMark: readBufferBytes(size),
        }) as AsyncIterable<Buffer>) {
          hash.update(chunk);
          hashed += chunk.length;
          bytesRead += chunk.length;
          yield chunk;
        }
      };
      const lines = positioned(jsonlRecords(chunks()), file.relative);
      for await (const item of format.readFile(lines, {
        file,
        sessions: fileSessions,
        pending: filePending,
      })) {
        if ("stream" in item) records[item.stream] = (records[item.stream] ?? 0) + 1;
        yield item;
      }
      readNow.set(file.relative, file.path);
      next.set(file.path, {
        size: hashed,
        mtimeMs,
        digest: hash.digest("hex"),
        records,
        sessions: [...fileSessions.values()],
        ...(filePending.length > 0 ? { pending: filePending } : {}),
      });
      mergeInto(fileSessions.values());
      pending.push(...filePending);
    }
    format.settle?.(sessions, pending);
    for (const session of sessions.values()) {
      yield {
        stream: "sessions",
        position: `session ${session.session_id}`,
        data: sessionRecord(session, format.sessionFacts),
      };
    }
  }

  return {
    manifest: format.manifest,
    items: items(),
    bytesRead: () => bytesRead,
    totalBytes: sizes.reduce((n, s) => n + s.size, 0),
    async prepare(context: IncrementalContext) {
      if (!context.stateDir) return;
      state = await openFileState({
        api: context.api,
        stateDir: context.stateDir,
        connectorKey: format.manifest.connector_key,
        connectionLabel: context.connectionLabel,
        format: format.format,
      });
      skipped.connectionId = state.connectionId;
      // Files of this connection outside the directory read now stay known (another folder, same account).
      const listed = new Set(files.map((f) => f.path));
      for (const [path, entry] of state.files) if (!listed.has(path)) next.set(path, entry);
    },
    async commit(rejections: readonly ImportRejection[]) {
      // Each rejection of this run belongs to the file its position names (`file:line`): kept with the
      // file's state, so a later run that skips the unchanged file still reports it.
      for (const rejection of rejections) {
        const at = rejection.position.lastIndexOf(":");
        const path = at > 0 ? readNow.get(rejection.position.slice(0, at)) : undefined;
        const entry = path === undefined ? undefined : next.get(path);
        if (!entry) continue;
        entry.rejected = (entry.rejected ?? 0) + 1;
        entry.rejections ??= [];
        if (entry.rejections.length < MAX_FILE_REJECTIONS) entry.rejections.push(rejection);
      }
      await state?.save(next);
    },
    skipped: () => skipped,
    // Read in a worker thread (source-worker.ts): the state prepare loaded goes there, and what the
    // reading found (files read, their new entries, sessions skipped) comes back for commit.
    handoff: {
      prepared: (): LogDirPrepared => ({
        files: state ? [...state.files] : null,
        connectionId: state?.connectionId ?? null,
        next: [...next],
      }),
      resume(prepared) {
        const p = prepared as LogDirPrepared;
        if (p.files) {
          state = {
            files: new Map(p.files),
            connectionId: p.connectionId,
            save: () =>
              Promise.reject(new PdppError("internal_error", "import state saved off the main thread")),
          };
        }
        skipped.connectionId = p.connectionId;
        for (const [path, entry] of p.next) next.set(path, entry);
      },
      finished: (): LogDirFinished => ({ next: [...next], readNow: [...readNow], skipped, bytesRead }),
      adopt(finished) {
        const f = finished as LogDirFinished;
        next.clear();
        for (const [path, entry] of f.next) next.set(path, entry);
        for (const [relativePath, path] of f.readNow) readNow.set(relativePath, path);
        Object.assign(skipped, f.skipped);
        bytesRead = f.bytesRead;
      },
    },
  };
}

/** What a log folder's source read in a worker is given of the main thread's prepare, and gives back. */
interface LogDirPrepared {
  files: [string, FileEntry][] | null;
  connectionId: string | null;
  next: [string, FileEntry][];
}
interface LogDirFinished {
  next: [string, FileEntry][];
  readNow: [string, string][];
  skipped: SkippedReport;
  bytesRead: number;
}

/**
 * A file's read buffer: its size (plus the byte that finds its end) up to 1 MiB. Session logs are
 * mostly tens of KiB, and each read of a 1 MiB stream allocates 1 MiB outside the heap that the
 * lines sliced from it keep until a collection: 60-90 MB of RSS over a folder of small logs.
 */
export function readBufferBytes(size: number): number {
  return Math.min(1 << 20, Math.max(64, size + 1));
}

async function* positioned(lines: AsyncIterable<LogLine>, file: string): AsyncGenerator<LogLine> {
  for await (const line of lines) {
    yield { ...line, position: line.position.replace(/^line /, `${file}:`) };
  }
}

async function digestOf(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
  }
  return hash.digest("hex");
}

/** The summary with the skipped files' records counted as read and unchanged (they are, by digest). */
export function withSkipped(summary: ImportSummary, skipped: SkippedReport): ImportSummary {
  const perStream = { ...summary.perStream };
  let total = 0;
  for (const [stream, n] of Object.entries(skipped.records)) {
    const counts = perStream[stream] ?? { added: 0, updated: 0, unchanged: 0, rejected: 0 };
    perStream[stream] = { ...counts, unchanged: counts.unchanged + n };
    total += n;
  }
  return {
    ...summary,
    perStream,
    read: summary.read + total,
    unchanged: summary.unchanged + total,
    rejected: summary.rejected + skipped.rejected,
    rejections: [...skipped.rejections, ...summary.rejections].slice(0, MAX_REPORTED_REJECTIONS),
  };
}
