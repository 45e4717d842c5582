/** Plain-text tables for the bench's console output. */

/** A number with `d` decimals, or `-` when there is none. */
export const f = (v: number | null | undefined, d = 0): string => (v === null || v === undefined || Number.isNaN(v) ? '-' : v.toFixed(d));

/** Columns padded to their widest cell; the first column left-aligned, the others right-aligned. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
