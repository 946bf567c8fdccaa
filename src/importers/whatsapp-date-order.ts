// Which order a WhatsApp export writes its dates in (day/month/year, month/day/year or year/month/day),
// from every hint the file gives, and the sentence the import summary says about it. The dates decide
// when one reads as a date in only one order; otherwise the choice is an assumption, and says so.
import type { WallTime } from "./wall-time.js";
import { isValidWallTime } from "./wall-time.js";
import type { HeaderLine } from "./whatsapp-header.js";
import { LANGUAGE_DATE_ORDER, type Language, languageName } from "./whatsapp-locale.js";

export type DateOrder = "dmy" | "mdy" | "ymd";
export const DATE_ORDERS: readonly DateOrder[] = ["dmy", "mdy", "ymd"];

/** WhatsApp exists since 2009: a date before it is a misreading. */
const FIRST_YEAR = 2009;

/** The wall time of a header under a date order; null when the numbers make no date in that order. */
export function headerWallTime(h: HeaderLine, order: DateOrder): WallTime | null {
  const [year, month, day] =
    order === "ymd" ? [h.a, h.b, h.c] : order === "dmy" ? [h.c, h.b, h.a] : [h.c, h.a, h.b];
  const yearDigits = order === "ymd" ? h.digits[0] : h.digits[2];
  // The year is the number written with 4 digits, or a 2-digit one; a 1- or 3-digit year is no year.
  if (yearDigits !== 2 && yearDigits !== 4) return null;
  const wall = {
    year: yearDigits === 2 ? 2000 + year : year,
    month,
    day,
    hour: h.hour,
    minute: h.minute,
    second: h.second,
  };
  return isValidWallTime(wall) ? wall : null;
}

/** What the whole file says about its dates, gathered line by line (feed every header, then decide). */
export class DateOrderEvidence {
  /** Orders every header so far reads as a real date in. */
  readonly possible = new Set<DateOrder>(DATE_ORDERS);
  /** Orders some header reads as a date before WhatsApp existed in (2009): a misreading unless nothing else reads. */
  readonly early = new Set<DateOrder>();
  /** The first line that ruled an order out, per order, for the summary. */
  readonly ruledOutBy = new Map<DateOrder, { line: number; stamp: string }>();
  /** Per order: times a message dated earlier than the one before it (exports are in time order). */
  readonly backwards = new Map<DateOrder, number>();
  private readonly before = new Map<DateOrder, string>();
  readonly clocks = new Set<HeaderLine["clock"]>();
  readonly separators = new Set<string>();
  headers = 0;

  add(h: HeaderLine, line: number): void {
    this.headers++;
    this.clocks.add(h.clock);
    this.separators.add(h.separator);
    const walls = DATE_ORDERS.map((order) => headerWallTime(h, order));
    // A line no order reads (30/02/2024) is a damaged line, not evidence: it is rejected on its own.
    if (walls.every((wall) => wall === null)) return;
    for (const [i, order] of DATE_ORDERS.entries()) {
      if (!this.possible.has(order)) continue;
      const wall = walls[i];
      if (!wall) {
        this.possible.delete(order);
        this.ruledOutBy.set(order, { line, stamp: h.stamp });
        continue;
      }
      if (wall.year < FIRST_YEAR) this.early.add(order);
      const key = `${wall.year}${pad(wall.month)}${pad(wall.day)}`;
      const previous = this.before.get(order);
      if (previous !== undefined && key < previous) {
        this.backwards.set(order, (this.backwards.get(order) ?? 0) + 1);
      }
      this.before.set(order, key);
    }
  }

  /** The orders left: those every header reads in, less those dating a message before 2009 if any remain. */
  plausible(): DateOrder[] {
    const possible = DATE_ORDERS.filter((o) => this.possible.has(o));
    const recent = possible.filter((o) => !this.early.has(o));
    return recent.length > 0 ? recent : possible;
  }

  /** True once a single order is left: reading further cannot change the answer. */
  decided(): boolean {
    return this.plausible().length === 1;
  }
}

const pad = (n: number) => String(n).padStart(2, "0");

export interface DateOrderDecision {
  order: DateOrder;
  /** True when the file's dates read in no other order (an explicit --date-order counts as certain). */
  certain: boolean;
  /** Why, for the summary: "decided by the dates: line 7 (13/01/2024) is no date month/day/year", "assumed: …". */
  reason: string;
  /** Other orders every header also reads as a real date in (empty when certain). */
  alternatives: DateOrder[];
}

export const ORDER_NAMES: Record<DateOrder, string> = {
  dmy: "day/month/year",
  mdy: "month/day/year",
  ymd: "year/month/day",
};

/**
 * Decide from the evidence and the chat's language (from its file name or its localised lines). The
 * dates decide when they can (a number that is no month, a year before WhatsApp); then, in this order:
 * the messages' time order, the Chinese/Korean/Japanese clock (year first), the chat's language, dots
 * between the numbers (never month first), the US clock (`AM`/`PM`), and last day first, as most of the
 * world writes.
 */
export function decideDateOrder(evidence: DateOrderEvidence, language: Language | null): DateOrderDecision {
  const possible = DATE_ORDERS.filter((o) => evidence.possible.has(o));
  if (possible.length === 0) {
    return {
      order: "dmy",
      certain: false,
      reason: "no date in the file reads in any order",
      alternatives: [],
    };
  }
  const plausible = evidence.plausible();
  const alternatives = (order: DateOrder) => possible.filter((o) => o !== order);
  if (possible.length === 1) {
    const order = possible[0]!;
    // Cite the line that ruled out the order people confuse this one with (day and month swapped).
    const rival = order === "mdy" ? "dmy" : "mdy";
    const at = evidence.ruledOutBy.get(rival) ?? [...evidence.ruledOutBy.values()][0];
    const why = at
      ? `line ${at.line} (${at.stamp}) is no date ${ORDER_NAMES[rival]}`
      : "they read in no other order";
    return { order, certain: true, reason: `decided by the dates: ${why}`, alternatives: [] };
  }
  if (plausible.length === 1) {
    const order = plausible[0]!;
    return {
      order,
      certain: false,
      reason: `decided by the dates: read ${ORDER_NAMES[alternatives(order)[0]!]} they would fall before 2009, when WhatsApp began`,
      alternatives: alternatives(order),
    };
  }
  const choose = (order: DateOrder, reason: string): DateOrderDecision => ({
    order,
    certain: false,
    reason: `assumed: ${reason}`,
    alternatives: alternatives(order),
  });
  const backwards = plausible.map((o) => evidence.backwards.get(o) ?? 0);
  const fewest = Math.min(...backwards);
  const inOrder = plausible.filter((_, i) => backwards[i] === fewest);
  if (inOrder.length === 1 && fewest === 0) {
    return choose(inOrder[0]!, "the messages are in time order only when read so");
  }
  const has = (o: DateOrder) => inOrder.includes(o);
  if (evidence.clocks.has("cjk") && has("ymd")) {
    return choose(
      "ymd",
      "the 上午/下午, 오전/오후 or 午前/午後 clock is the Chinese, Korean or Japanese form, year first",
    );
  }
  const preferred = language ? LANGUAGE_DATE_ORDER[language] : null;
  if (language && preferred && has(preferred)) {
    return choose(
      preferred,
      `the chat is in ${languageName(language)}, which writes ${ORDER_NAMES[preferred]}`,
    );
  }
  if (evidence.separators.has(".") && has("dmy")) {
    return choose("dmy", "dates written with dots put the day first");
  }
  if (evidence.clocks.has("ampm") && has("mdy")) {
    return choose(
      "mdy",
      "no date has a day above 12, and the AM/PM clock is the United States' form, month first",
    );
  }
  if (has("dmy")) return choose("dmy", "no date has a day above 12; day first, as most locales write");
  return choose(inOrder[0]!, `the dates read ${inOrder.map((o) => ORDER_NAMES[o]).join(" or ")}`);
}
