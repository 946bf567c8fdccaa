// What an earlier import of a calendar left that this one must remove: occurrences of a series that its
// rule, EXDATEs or overrides no longer produce, the first importer's one-record-per-series, occurrences
// of an event that stopped recurring. Only the calendar's own events are touched (their UIDs are in the
// file); occurrences before the window are history the window no longer covers, and stay.
import { findConnection } from "./file-state.js";
import type { ExpandWindow } from "./ical-recur.js";
import type { OwnerApi } from "./owner-sink.js";

interface StoredEvent {
  event_id: string;
  uid: string | null;
  start: string | null;
}

export interface StoredCalendar {
  events: StoredEvent[];
  series: string[];
}

/** Every stored event and series of the connection (id, UID, start), read page by page over the owner API. */
export async function loadStored(
  api: OwnerApi,
  options: { connectorKey: string; connectionLabel: string },
): Promise<StoredCalendar> {
  const connection = await findConnection(api, options.connectorKey, options.connectionLabel);
  if (!connection) return { events: [], series: [] };
  const list = async (stream: string, fields: string[]) => {
    const rows: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    do {
      const url = new URL(`/v1/streams/${stream}/records`, api.baseUrl);
      url.searchParams.set("connection_id", connection.connection_id);
      url.searchParams.set("fields", fields.join(","));
      url.searchParams.set("limit", "100");
      if (cursor) url.searchParams.set("cursor", cursor);
      const response = await api.fetch(
        new Request(url, { headers: { authorization: `Bearer ${api.ownerToken}` } }),
      );
      if (response.status === 404) return rows; // a stream the connection's manifest does not have yet
      if (!response.ok) throw new Error(`reading the stored ${stream} failed (${response.status})`);
      const page = (await response.json()) as {
        data: { data: Record<string, unknown> }[];
        next_cursor: string | null;
      };
      for (const record of page.data) rows.push(record.data);
      cursor = page.next_cursor;
    } while (cursor);
    return rows;
  };
  const events = await list("events", ["event_id", "uid", "start"]);
  const series = await list("series", ["series_id"]);
  return {
    events: events.map((e) => ({
      event_id: String(e.event_id),
      uid: typeof e.uid === "string" ? e.uid : null,
      start: typeof e.start === "string" ? e.start : null,
    })),
    series: series.map((s) => String(s.series_id)),
  };
}

/** The event and series ids to delete, given what this import wrote per UID. */
export function staleRecords(
  stored: StoredCalendar,
  written: { events: ReadonlySet<string>; recurring: ReadonlySet<string>; single: ReadonlySet<string> },
  window: ExpandWindow,
): { events: string[]; series: string[] } {
  const events = stored.events
    .filter((e) => {
      if (e.uid === null || written.events.has(e.event_id)) return false;
      if (written.single.has(e.uid)) return true; // no longer recurring: its occurrences go
      if (!written.recurring.has(e.uid)) return false; // not in this file: left alone
      if (e.event_id === e.uid) return true; // one record for the whole series (first importer)
      return e.start !== null && Date.parse(e.start) >= window.from;
    })
    .map((e) => e.event_id);
  const series = stored.series.filter((id) => written.single.has(id));
  return { events, series };
}
