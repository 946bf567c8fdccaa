// Synthetic bank transactions as a CSV export plus the manifest that declares them (connector csv.bank).
import type { Manifest } from "../core/manifest.js";
import type { Rng } from "./prng.js";

export const BANK_MANIFEST: Manifest = {
  connector_key: "csv.bank",
  display_name: "Bank (CSV)",
  version: "1",
  description: "Card and account transactions from a bank's CSV export.",
  streams: [
    {
      name: "transactions",
      display_name: "Transactions",
      primary_key: ["id"],
      cursor_field: "date",
      time_field: "date",
      title_field: "merchant",
      schema: {
        type: "object",
        properties: {
          id: { type: "string" },
          date: { type: "string", format: "date-time" },
          amount: { type: "number", description: "Negative for spending, positive for income." },
          currency: { type: "string" },
          merchant: { type: "string" },
          category: { type: "string" },
          description: { type: "string" },
        },
        required: ["id", "date", "amount"],
      },
      text_fields: [],
      query: {
        search: ["merchant", "description", "category"],
        exact_filters: ["currency", "merchant", "category"],
        range_filters: { date: ["gte", "gt", "lte", "lt"], amount: ["gte", "gt", "lte", "lt"] },
        aggregations: {
          group_by: ["merchant", "category", "currency"],
          group_by_time: ["date"],
          sum: ["amount"],
          min: ["amount", "date"],
          max: ["amount", "date"],
          count_distinct: ["merchant", "category"],
        },
      },
    },
  ],
};

const MERCHANTS: { merchant: string; category: string; min: number; max: number }[] = [
  { merchant: "Corner Books", category: "Books", min: 8, max: 45 },
  { merchant: "FreshMart", category: "Groceries", min: 12, max: 140 },
  { merchant: "Metro Transit", category: "Transport", min: 2, max: 60 },
  { merchant: "Café Lumen", category: "Eating out", min: 3, max: 18 },
  { merchant: "Lisbon Stays", category: "Travel", min: 90, max: 480 },
  { merchant: "TAP Air", category: "Travel", min: 120, max: 650 },
  { merchant: "CloudCo", category: "Subscriptions", min: 9, max: 9 },
  { merchant: "City Power", category: "Utilities", min: 45, max: 120 },
  { merchant: "Plumb & Sons", category: "Home", min: 80, max: 260 },
];

function csvCell(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function buildTransactionsCsv(rng: Rng, options: { count: number; startMs: number }): string {
  const rows = ["id,date,amount,currency,merchant,category,description"];
  let time = options.startMs;
  for (let i = 0; i < options.count; i++) {
    time += rng.int(2, 40) * 3_600_000;
    const date = `${new Date(time).toISOString().slice(0, 19)}Z`;
    let row: string[];
    if (i % 30 === 0) {
      row = [
        `tx-${String(i).padStart(6, "0")}`,
        date,
        "4200.00",
        "EUR",
        "Atlas Corp",
        "Income",
        "Salary, monthly",
      ];
    } else {
      const m = rng.pick(MERCHANTS);
      const amount = -(m.min + rng.next() * (m.max - m.min));
      const note =
        m.category === "Travel"
          ? `Booking ref ${rng.int(100000, 999999)}, "Lisbon"`
          : `${m.category} purchase`;
      row = [
        `tx-${String(i).padStart(6, "0")}`,
        date,
        amount.toFixed(2),
        "EUR",
        m.merchant,
        m.category,
        note,
      ];
    }
    rows.push(row.map(csvCell).join(","));
  }
  return `${rows.join("\r\n")}\r\n`;
}
