// Plain aligned text tables for list-style command output (no colours: output is often piped).

/** Render rows under headers, columns padded to their widest cell, two spaces apart. */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column])))
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].join("\n");
}

/** Commander collector for repeatable options (`--stream a --stream b`). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
