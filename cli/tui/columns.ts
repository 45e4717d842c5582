/** Table columns fitted to the terminal's width, measured in terminal cells (wide characters count twice). */
import stringWidth from 'string-width';

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
