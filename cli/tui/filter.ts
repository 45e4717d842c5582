/** The `/` filter: rows or lines whose text contains it, ignoring case. */
import { terminalSafe } from '../output/terminal-safe.js';
import type { Cell, Row } from './page-spec.js';
import { lineText, type Line } from './text.js';

/** A cell's text as drawn (and measured): backend text never carries control sequences to the terminal. */
export const cellText = (c: Cell): string => terminalSafe(typeof c === 'string' ? c : c.text);

export function filterRows(rows: Row[], filter: string): Row[] {
  if (!filter) return rows;
  const f = filter.toLowerCase();
  return rows.filter((r) => r.cells.some((c) => cellText(c).toLowerCase().includes(f)));
}

export function filterLines(lines: Line[], filter: string): Line[] {
  if (!filter) return lines;
  const f = filter.toLowerCase();
  return lines.filter((l) => lineText(l).toLowerCase().includes(f));
}
