/** Formats rows as left-aligned columns under a header; long cells are cut to `maxWidth` with an ellipsis. */
export function table(headers: string[], rows: (string | number | undefined)[][], maxWidth = 60): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => cut(c === undefined ? '' : String(c), maxWidth)))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
