// content[] text of aggregate: `count(messages) = 1234` or the top groups with other_count;
// never record bodies; ≤ 400 chars scalar, ≤ 1,200 grouped.

import { clipUnits } from "../clip-text.js";
import type { AggregateAnswer } from "../wire.js";
import { AGGREGATE_GROUPED_CHARS, AGGREGATE_SCALAR_CHARS } from "./budget.js";

const clipChars = clipUnits;

function label(answer: AggregateAnswer): string {
  return answer.field
    ? `${answer.metric}(${answer.stream}.${answer.field})`
    : `${answer.metric}(${answer.stream})`;
}

export function renderAggregateText(answer: AggregateAnswer, options: { groupBy?: string } = {}): string {
  const spans = answer.streams && answer.streams.length > 1 ? ` · spans ${answer.streams.join(", ")}` : "";
  const warnings = `${spans}${(answer.meta?.warnings ?? []).map((w) => ` · warning ${w.code}`).join("")}`;
  if (!answer.groups) {
    const line = `${label(answer)} = ${JSON.stringify(answer.value ?? null)} · records matched=${answer.filtered_record_count}${warnings}`;
    return clipChars(line, AGGREGATE_SCALAR_CHARS);
  }
  const by = options.groupBy ?? "time";
  const head = `${label(answer)} by ${clipChars(by, 64)}${answer.effective_time_zone ? ` (${answer.effective_time_zone})` : ""}:`;
  const tail = ` · groups=${answer.group_count ?? answer.groups.length} other_count=${answer.other_count ?? 0} records matched=${answer.filtered_record_count}${warnings}`;
  const budget = AGGREGATE_GROUPED_CHARS - head.length - tail.length - 24;
  const shown: string[] = [];
  let used = 0;
  for (const g of answer.groups) {
    const item = `${JSON.stringify(clipChars(g.key ?? "null", 60))}=${g.value}`;
    if (used + item.length + 2 > budget) {
      shown.push(`… ${answer.groups.length - shown.length} more`);
      break;
    }
    shown.push(item);
    used += item.length + 2;
  }
  return clipChars(`${head} ${shown.join(", ")}${tail}`, AGGREGATE_GROUPED_CHARS);
}
