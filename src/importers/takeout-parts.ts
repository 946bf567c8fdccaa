// Which files of a Google Takeout this importer reads. Takeout names its folders and files in the
// account's language (`Meine Aktivitäten/Suche/MeineAktivitäten.json`, `YouTube und YouTube Music/
// Verlauf/Wiedergabeverlauf.json`), so a part is recognised by its content: a JSON array of My Activity
// items ({header, title, time, …}: every product's activity, YouTube's watch and search history), or
// Chrome's {"Browser History": [...]}. The English paths are still known by name (their product is the
// folder, as the first importer read it). Every other part is named in the summary as skipped.

export interface Member {
  name: string;
  size: number;
}

export interface Part {
  member: Member;
  stream: "activity" | "browser_history";
  /** The product of every item (English My Activity folders), or null to take it from each item. */
  product: string | null;
}

const ACTIVITY = /(?:^|\/)My Activity\/([^/]+)\/MyActivity\.json$/;
const BROWSER = /(?:^|\/)Chrome\/(?:BrowserHistory|History)\.json$/;
/** Bytes of a JSON file read to tell what it holds. */
export const SNIFF_BYTES = 4096;

/** English names that say a Takeout for sure (for auto-detection, which sees names only). */
export function isKnownTakeoutPart(name: string): boolean {
  return (
    ACTIVITY.test(name) ||
    BROWSER.test(name) ||
    /(?:^|\/)YouTube and YouTube Music\/history\/(?:watch|search)-history\.json$/.test(name)
  );
}

/**
 * JSON files whose content decides: not Google Photos' per-photo sidecars (`IMG_1.jpg.json`,
 * `….supplemental-metadata.json`), of which a Takeout can hold tens of thousands.
 */
export function worthSniffing(member: Member): boolean {
  if (!/\.json$/i.test(member.name) || member.size < 16) return false;
  if (ACTIVITY.test(member.name) || BROWSER.test(member.name)) return false;
  return !/\.(?:jpe?g|png|gif|heic|webp|mp4|mov|3gp|avi|m4v|dng|raw|tiff?)(?:\.[^/]*)?\.json$|supplemental-metadata|metadata\.json$/i.test(
    member.name,
  );
}

/** What a JSON file's first bytes say it is. */
export function sniff(head: string): Part["stream"] | null {
  const text = head.replace(/^\ufeff/, "").trimStart();
  if (text.startsWith("{")) return /^\{\s*"Browser History"\s*:\s*\[/.test(text) ? "browser_history" : null;
  if (!text.startsWith("[")) return null;
  // The first item of a My Activity array: {"header": …, "title": …, …, "time": …} (keys in this order).
  const first = /^\[\s*\{([\s\S]*?)\}/.exec(text)?.[1] ?? text.slice(1);
  return /"header"\s*:/.test(first) && /"title"\s*:/.test(first) && /"time"\s*:|"titleUrl"\s*:/.test(first)
    ? "activity"
    : null;
}

/** The parts read, and a name for every other part (a product folder, or HTML activity). */
export function classify(
  members: Member[],
  sniffed: ReadonlyMap<string, Part["stream"] | null>,
): { parts: Part[]; skipped: string[]; read: string[] } {
  const parts: Part[] = [];
  const skipped = new Map<string, number>();
  const read = new Map<string, number>();
  const count = (map: Map<string, number>, label: string) => map.set(label, (map.get(label) ?? 0) + 1);
  const rest: string[][] = [];
  const activityFolders = new Set<string>();
  for (const member of members) {
    const segments = member.name.replace(/^Takeout\//, "").split("/");
    const activity = ACTIVITY.exec(member.name);
    const stream = activity
      ? "activity"
      : BROWSER.test(member.name)
        ? "browser_history"
        : sniffed.get(member.name);
    if (!stream) {
      rest.push(segments);
      continue;
    }
    parts.push({ member, stream, product: activity ? activity[1]! : null });
    count(read, segments.length > 2 ? `${segments[0]}/${segments[1]}` : segments[0]!);
    if (stream === "activity" && segments.length === 3) activityFolders.add(segments[0]!);
  }
  for (const segments of rest) {
    // A product's activity exported as HTML beside others exported as JSON (My Activity's default).
    const html = segments.length === 3 && segments[2]!.endsWith(".html");
    const inActivity = segments[0] === "My Activity" || activityFolders.has(segments[0]!);
    const label =
      inActivity && segments.length > 2
        ? `${segments[0]}/${segments[1]}${html ? " (HTML: export it as JSON)" : ""}`
        : segments[0]!;
    count(skipped, label);
  }
  // Sorted, so a zip (archive order) and its extracted folder (listed sorted) say the same.
  const list = (map: Map<string, number>) =>
    [...map]
      .sort(([a], [b]) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1))
      .map(([label, n]) => `${label} (${n} ${n === 1 ? "file" : "files"})`);
  return { parts, skipped: list(skipped), read: list(read) };
}
