/** Rows as a plain-text table for people: a header, then columns padded to their widest cell. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)))
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd()
  return [line(header), ...rows.map(line)].join('\n')
}

/** An ISO 8601 timestamp to the second, as a table shows it (`2026-11-23T10:04:05Z`). */
export const shortTime = (iso: string) => iso.replace(/\.\d+Z$/, 'Z')
