// One agent session's summary, built line by line from its log and merged across files, from which the
// `sessions` record is made (pure logic; shared by the Claude Code and Codex importers).
import { clipText, oneLine } from "../core/clip-text.js";

/** Where a session's title came from, best first. */
export type TitleSource = "rename" | "ai" | "summary" | "prompt";

export interface SessionSummary {
  session_id: string;
  started_at: string | null;
  ended_at: string | null;
  /** User and assistant text turns (not injected context, not a sub-agent's). */
  message_count: number;
  tool_call_count: number;
  /** The first real user prompt (shortened), and when it was sent (the earliest wins across files). */
  title: string | null;
  title_at: string | null;
  /** Titles the log states, the latest of each kind: the user's rename, the agent's, a summary's. */
  titles: Partial<Record<Exclude<TitleSource, "prompt">, string>>;
  /** Entries of this session no other entry of its file answers: what a `summary` line points at. */
  leaves: string[];
  /** Descriptive facts (cwd, git branch, version, model…): the first non-null value seen wins. */
  facts: Record<string, string | null>;
}

export const TITLE_CHARS = 200;

export function newSession(sessionId: string): SessionSummary {
  return {
    session_id: sessionId,
    started_at: null,
    ended_at: null,
    message_count: 0,
    tool_call_count: 0,
    title: null,
    title_at: null,
    titles: {},
    leaves: [],
    facts: {},
  };
}

/** Widen the session's time span to include `time`. */
export function touch(session: SessionSummary, time: string | null): void {
  if (!time) return;
  if (!session.started_at || time < session.started_at) session.started_at = time;
  if (!session.ended_at || time > session.ended_at) session.ended_at = time;
}

export function setFact(session: SessionSummary, name: string, value: unknown): void {
  if (session.facts[name] == null && typeof value === "string" && value !== "") session.facts[name] = value;
}

/** A prompt as a title: one line, at most TITLE_CHARS code points, never cut inside a character. */
export function titleOf(text: string): string {
  return clipText(oneLine(text), TITLE_CHARS);
}

/** Offer a user prompt as the session's title: the earliest one wins. */
export function offerTitle(session: SessionSummary, text: string, time: string | null): void {
  const title = titleOf(text);
  if (title === "") return;
  const earlier = !session.title || (time !== null && (session.title_at === null || time < session.title_at));
  if (earlier) {
    session.title = title;
    session.title_at = time;
  }
}

/** A title the log states (a rename, the agent's own, a summary): the latest of its kind wins. */
export function stateTitle(
  session: SessionSummary,
  source: Exclude<TitleSource, "prompt">,
  text: unknown,
): void {
  if (typeof text !== "string") return;
  const title = titleOf(text);
  if (title !== "") session.titles[source] = title;
}

/** The session's one title, the best its logs offer, and where it came from. */
export function bestTitle(session: SessionSummary): { title: string; source: TitleSource | null } {
  for (const source of ["rename", "ai", "summary"] as const) {
    const title = session.titles[source];
    if (title) return { title, source };
  }
  return session.title ? { title: session.title, source: "prompt" } : { title: "", source: null };
}

/** Merge `b` into `a` (same session seen in two files): spans widen, counts add, earliest facts win. */
export function mergeSession(a: SessionSummary, b: SessionSummary): SessionSummary {
  const aFirst = (a.started_at ?? "") <= (b.started_at ?? "") || b.started_at === null;
  const [early, late] = aFirst ? [a, b] : [b, a];
  const merged: SessionSummary = {
    ...newSession(a.session_id),
    message_count: a.message_count + b.message_count,
    tool_call_count: a.tool_call_count + b.tool_call_count,
    // A stated title of the later file wins (titles carry no time of their own).
    titles: { ...(a.titles ?? {}), ...(b.titles ?? {}) },
    leaves: [...new Set([...(a.leaves ?? []), ...(b.leaves ?? [])])],
    facts: { ...late.facts },
  };
  for (const [k, v] of Object.entries(early.facts)) if (v != null) merged.facts[k] = v;
  for (const s of [a, b]) {
    touch(merged, s.started_at);
    touch(merged, s.ended_at);
    if (s.title) offerTitle(merged, s.title, s.title_at);
  }
  return merged;
}

/** The `sessions` record of a summary. */
export function sessionRecord(
  session: SessionSummary,
  factNames: readonly string[],
): Record<string, unknown> {
  const { title, source } = bestTitle(session);
  const record: Record<string, unknown> = {
    session_id: session.session_id,
    title,
    title_source: source,
    started_at: session.started_at,
    ended_at: session.ended_at,
    message_count: session.message_count,
    tool_call_count: session.tool_call_count,
  };
  for (const name of factNames) record[name] = session.facts[name] ?? null;
  return record;
}
