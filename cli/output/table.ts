/**
 * kubectl-style text: upper-case headers, columns separated by two spaces,
 * widths measured without colour codes; and `Key: value` blocks for one record.
 */
import { stripVTControlCharacters } from 'node:util';

const width = (s: string) => stripVTControlCharacters(s).length;

export function renderTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
  return [headers, ...rows].map((cells) => formatRow(cells, widths)).join('\n') + '\n';
}

/**
 * A table whose rows arrive one at a time (`events follow`): each line is
 * printed as it comes, so the widths are set up front from the widest value
 * each column is expected to hold, and a column grows only when a longer
 * value than that arrives.
 */
export class StreamingTable {
  private readonly widths: number[];

  constructor(
    private readonly headers: string[],
    expectedWidths: number[],
  ) {
    this.widths = headers.map((h, i) => Math.max(width(h), expectedWidths[i] ?? 0));
  }

  header(): string {
    return `${formatRow(this.headers, this.widths)}\n`;
  }

  row(cells: string[]): string {
    cells.forEach((cell, i) => (this.widths[i] = Math.max(this.widths[i] ?? 0, width(cell))));
    return `${formatRow(cells, this.widths)}\n`;
  }
}

/** Cells padded to `widths` (measured without colour codes), two spaces apart; the last one unpadded. */
function formatRow(cells: string[], widths: number[]): string {
  return cells
    .map((cell, i) => (i === cells.length - 1 ? cell : cell + ' '.repeat(Math.max(0, widths[i] - width(cell)))))
    .join('  ')
    .trimEnd();
}

/** Aligned `Key: value` lines (values may already be coloured). */
export function renderFields(fields: Array<[string, string]>): string {
  const w = Math.max(0, ...fields.map(([k]) => k.length + 1));
  return fields.map(([k, v]) => `${`${k}:`.padEnd(w)}  ${v}`).join('\n') + '\n';
}

/** Shortens one-line text for a table cell. */
export function clip(text: string, max = 60): string {
  const first = text.split('\n')[0].trim();
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}

/** `3d4h`, `2h5m`, `4m10s`, `12s`: the two largest units, like kubectl's AGE. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const i = DURATION_UNITS.findIndex(([, size]) => s >= size);
  if (i === -1) return '0s';
  const [unit, size] = DURATION_UNITS[i];
  const head = `${Math.floor(s / size)}${unit}`;
  if (i === DURATION_UNITS.length - 1) return head;
  const [nextUnit, nextSize] = DURATION_UNITS[i + 1];
  const next = Math.floor((s % size) / nextSize);
  return next ? `${head}${next}${nextUnit}` : head;
}

const DURATION_UNITS: Array<[string, number]> = [
  ['d', 86400],
  ['h', 3600],
  ['m', 60],
  ['s', 1],
];
