/**
 * Columns fitted to the terminal's width, measured in terminal cells (wide
 * characters count twice): the tables, and the rows of detail pages.
 */
import stringWidth from 'string-width';
import type { Cell } from './page-spec.js';
import { cellText } from './filter.js';
import type { Line } from './text.js';

export const GAP = 2;

/** The narrowest the flex column (a description, a message) gets before the other columns give way. */
const FLEX_MIN = 16;

/**
 * Each column as wide as its widest cell; the flex column takes the room left.
 * When too wide, the flex column gives way first (down to FLEX_MIN: names
 * matter more than descriptions), then the widest columns.
 */
export function fitColumns(natural: number[], flexIndex: number, total: number): number[] {
  const widths = [...natural];
  const room = total - GAP * Math.max(0, widths.length - 1);
  let sum = widths.reduce((a, b) => a + b, 0);
  if (sum < room && flexIndex >= 0) widths[flexIndex] += room - sum;
  if (sum > room && flexIndex >= 0) {
    const give = Math.min(sum - room, Math.max(0, widths[flexIndex] - FLEX_MIN));
    widths[flexIndex] -= give;
    sum -= give;
  }
  while (sum > room) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest] <= 3) break;
    widths[widest]--;
    sum--;
  }
  return widths;
}

/** `text` cut (with …) or padded with spaces to exactly `width` cells. */
export function fitText(text: string, width: number): string {
  const w = stringWidth(text);
  if (w <= width) return text + ' '.repeat(width - w);
  let out = '';
  let used = 0;
  for (const ch of text) {
    const cw = stringWidth(ch);
    if (used + cw > width - 1) break;
    out += ch;
    used += cw;
  }
  return `${out}…${' '.repeat(Math.max(0, width - used - 1))}`;
}

export const textWidth = (text: string): number => stringWidth(text);

/** Each column as wide as its widest cell. */
function naturalWidths(rows: Cell[][]): number[] {
  const count = Math.max(0, ...rows.map((r) => r.length));
  return Array.from({ length: count }, (_, i) => Math.max(0, ...rows.map((r) => textWidth(cellText(r[i] ?? '')))));
}

/** Widths for rows of cells (a table with its header): their natural widths fitted to `total` (fitColumns). */
export function columnWidths(rows: Cell[][], flexIndex: number, total: number): number[] {
  return fitColumns(naturalWidths(rows), flexIndex, total);
}

/** One row: each cell cut or padded to its column's width, GAP between, each cell keeping its style. */
export function cellsLine(cells: Cell[], widths: number[]): Line {
  return cells.map((c, i) => {
    const text = fitText(cellText(c), widths[i]) + (i < cells.length - 1 ? ' '.repeat(GAP) : '');
    return typeof c === 'string' ? { text } : { ...c, text };
  });
}

/**
 * Rows of cells as lines with aligned columns (a page's rows: conditions,
 * tools, arguments, events): each column as wide as its widest cell, the last
 * one as long as it is (the screen's edge cuts it). A column empty in every
 * row takes no room.
 */
export function alignedLines(rows: Cell[][]): Line[] {
  const used = naturalWidths(rows)
    .map((w, i) => (w > 0 ? i : -1))
    .filter((i) => i >= 0);
  const kept = rows.map((r) => used.map((i) => r[i] ?? ''));
  const widths = naturalWidths(kept);
  const last = used.length - 1;
  return kept.map((cells) =>
    cells.map((c, i) => {
      const text = cellText(c);
      const padded = i < last ? text + ' '.repeat(widths[i] - textWidth(text) + GAP) : text;
      return typeof c === 'string' ? { text: padded } : { ...c, text: padded };
    }),
  );
}
