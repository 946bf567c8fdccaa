// Small server-rendered SVG bar charts for the console (no script; the page's nonce'd stylesheet
// colours them, so the CSP stays as it is). Each bar carries a <title> with its label and value.
// The series builders are pure: they turn sparse counts into one bar per day or per period.

export interface Bar {
  label: string;
  value: number;
}

const DAY_MS = 86_400_000;

/** One bar per UTC day, the `days` days up to and including `today` (YYYY-MM-DD keys in `counts`). */
export function dailySeries(counts: Map<string, number>, options: { today: Date; days: number }): Bar[] {
  const end = Date.UTC(
    options.today.getUTCFullYear(),
    options.today.getUTCMonth(),
    options.today.getUTCDate(),
  );
  return Array.from({ length: options.days }, (_, i) => {
    const label = new Date(end - (options.days - 1 - i) * DAY_MS).toISOString().slice(0, 10);
    return { label, value: counts.get(label) ?? 0 };
  });
}

/** One bar per month (YYYY-MM) or year (YYYY) from the first to the last label of `sparse`, gaps as 0. */
export function periodSeries(sparse: Bar[], granularity: "month" | "year"): Bar[] {
  if (sparse.length === 0) return [];
  const values = new Map(sparse.map((b) => [b.label, b.value]));
  const index = (label: string) =>
    granularity === "year" ? Number(label) : Number(label.slice(0, 4)) * 12 + Number(label.slice(5, 7)) - 1;
  const labelOf = (i: number) =>
    granularity === "year" ? String(i) : `${Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, "0")}`;
  const labels = sparse.map((b) => b.label).sort();
  const from = index(labels[0]);
  const to = index(labels[labels.length - 1]);
  return Array.from({ length: to - from + 1 }, (_, i) => {
    const label = labelOf(from + i);
    return { label, value: values.get(label) ?? 0 };
  });
}

const MAX_BAR_WIDTH = 12;

export function BarChart(props: {
  bars: Bar[];
  unit: string;
  title: string;
  width?: number;
  height?: number;
}) {
  const width = props.width ?? 180;
  const height = props.height ?? 36;
  const labelSpace = 12;
  const plot = height - labelSpace;
  const max = Math.max(1, ...props.bars.map((b) => b.value));
  // Few bars stay thin bars (the chart narrows) rather than turning into blocks.
  const step = props.bars.length > 0 ? Math.min(MAX_BAR_WIDTH, width / props.bars.length) : width;
  const gap = step > 4 ? 1 : 0;
  const first = props.bars[0]?.label ?? "";
  const last = props.bars.at(-1)?.label ?? "";
  return (
    <svg
      class="chart"
      role="img"
      aria-label={props.title}
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      xmlns="http://www.w3.org/2000/svg"
    >
      <title>{props.title}</title>
      <line class="axis" x1="0" y1={plot + 0.5} x2={width} y2={plot + 0.5} />
      {props.bars.map((b, i) => {
        const h = b.value === 0 ? 0 : Math.max(1, Math.round((b.value / max) * (plot - 1)));
        return (
          <rect class="bar" x={(i * step).toFixed(2)} y={plot - h} width={(step - gap).toFixed(2)} height={h}>
            <title>{`${b.label}: ${b.value} ${props.unit}`}</title>
          </rect>
        );
      })}
      <text x="0" y={height - 1}>
        {first}
      </text>
      {last !== first ? (
        <text x={Math.max(step * props.bars.length, 90)} y={height - 1} text-anchor="end">
          {last}
        </text>
      ) : null}
    </svg>
  );
}
