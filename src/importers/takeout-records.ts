// Takeout items as records: a My Activity item (any product, YouTube's watch and search history too) and
// a Chrome history visit. Hosts are shown as people read them (`straße.example`), not in punycode.
import { createHash } from "node:crypto";
import { domainToUnicode } from "node:url";

function digest(parts: unknown[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 32);
}

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
/**
 * The array's elements of the schema's type (strings, or objects): one odd element (a number among the
 * products) is dropped, never the item, whose other fields are good.
 */
const strings = (v: unknown): string[] | null => {
  const kept = Array.isArray(v) ? v.filter((e): e is string => typeof e === "string") : [];
  return kept.length > 0 ? kept : null;
};
const objects = (v: unknown): Record<string, unknown>[] | null => {
  const kept = Array.isArray(v)
    ? v.filter((e): e is Record<string, unknown> => e !== null && typeof e === "object" && !Array.isArray(e))
    : [];
  return kept.length > 0 ? kept : null;
};

function parseUrl(url: string | null): URL | null {
  if (!url) return null;
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** The URL's host in Unicode (`xn--strae-oqa.example` → `straße.example`); null without one. */
export function readableHost(url: URL | null): string | null {
  if (!url?.hostname) return null;
  return domainToUnicode(url.hostname) || url.hostname;
}

/**
 * What an activity item did, from its URL (the title's words are in the account's language: `Watched …`,
 * `… angesehen`): a YouTube video watched, a YouTube or Google search; null for anything else.
 */
export function actionOf(url: URL | null): "watched" | "searched" | null {
  if (!url) return null;
  const host = url.hostname.toLowerCase();
  const youtube = host === "youtube.com" || host.endsWith(".youtube.com");
  if ((youtube && url.pathname === "/watch") || host === "youtu.be") return "watched";
  if (youtube && url.pathname === "/results") return "searched";
  if (/(?:^|\.)google\.[a-z.]+$/.test(host) && url.pathname === "/search") return "searched";
  return null;
}

/**
 * A My Activity item. `product` is the English My Activity folder the item came from, else null: then
 * the item's first product, its header, or `folder` (the file's folder) names it.
 */
export function activityRecord(
  item: Record<string, unknown>,
  options: { product: string | null; folder: string },
): { data: Record<string, unknown> } | { error: string } {
  const time = str(item.time);
  if (!time || Number.isNaN(Date.parse(time))) return { error: "activity item has no valid time" };
  const header = str(item.header);
  const title = str(item.title);
  const titleUrl = str(item.titleUrl);
  const products = strings(item.products);
  const product = options.product ?? str(products?.[0]) ?? header ?? options.folder;
  const url = parseUrl(titleUrl);
  const data = {
    // Not a digest of the whole item: a later export that adds a field must still match this record.
    activity_id: digest([product, header, title, titleUrl, time]),
    product,
    header,
    title,
    title_url: titleUrl,
    domain: readableHost(url),
    action: actionOf(url),
    time: new Date(time).toISOString(),
    products,
    subtitles: objects(item.subtitles),
    details: objects(item.details),
    location_infos: objects(item.locationInfos),
    activity_controls: strings(item.activityControls),
    description: str(item.description),
  };
  return { data };
}

export function visitRecord(
  item: Record<string, unknown>,
): { data: Record<string, unknown> } | { error: string } {
  const url = str(item.url);
  const usec = typeof item.time_usec === "number" ? item.time_usec : Number(item.time_usec);
  if (!url) return { error: "history item has no url" };
  if (!Number.isFinite(usec) || usec <= 0) return { error: "history item has no valid time_usec" };
  const clientId = str(item.client_id);
  const data = {
    visit_id: digest([url, usec, clientId]),
    title: str(item.title),
    url,
    domain: readableHost(parseUrl(url)),
    visited_at: new Date(Math.floor(usec / 1000)).toISOString(),
    page_transition: str(item.page_transition),
    client_id: clientId,
    favicon_url: str(item.favicon_url),
  };
  return { data };
}
