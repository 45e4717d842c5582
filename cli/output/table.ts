/**
 * kubectl-style text: upper-case headers, columns separated by two spaces,
 * widths measured without colour codes; and `Key: value` blocks for one record.
 */
import { stripVTControlCharacters } from 'node:util';

const width = (s: string) => stripVTControlCharacters(s).length;

export function renderTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell + ' '.repeat(widths[i] - width(cell))))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
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
