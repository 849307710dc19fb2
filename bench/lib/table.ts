// Plain-text tables in Markdown syntax: readable in a terminal and pasteable into the README.

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map((r) => line(header.map((_, i) => r[i] ?? '')))].join('\n');
}

export function printTable(title: string, header: string[], rows: string[][], notes: string[] = []): void {
  console.log(`\n${title}\n`);
  console.log(table(header, rows));
  for (const note of notes) console.log(note);
}
