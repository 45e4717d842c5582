/** Styled text for the TUI's pages: a line is a list of segments, each with at most one colour. */
export type Color = 'green' | 'yellow' | 'red' | 'cyan' | 'blue' | 'magenta' | 'gray' | 'white';

export interface Segment {
  text: string;
  color?: Color;
  bold?: boolean;
  dim?: boolean;
}

export type Line = Segment[];

export const seg = (text: string, style: Omit<Segment, 'text'> = {}): Segment => ({ text, ...style });
export const line = (...parts: Array<Segment | string>): Line => parts.map((p) => (typeof p === 'string' ? { text: p } : p));
export const lineText = (l: Line): string => l.map((s) => s.text).join('');

/** Plain text as lines: split at newlines, long lines cut into pieces of `width` (tabs become spaces). */
export function textLines(text: string, width: number, style: Omit<Segment, 'text'> = {}): Line[] {
  const w = Math.max(1, width);
  const out: Line[] = [];
  for (const raw of text.replace(/\t/g, '  ').split('\n')) {
    const chars = [...raw.replace(/\r$/, '')];
    if (chars.length === 0) out.push([]);
    for (let i = 0; i < chars.length; i += w) out.push([{ text: chars.slice(i, i + w).join(''), ...style }]);
  }
  return out;
}

/** One colour per phase, health status or state word, the same everywhere (cli/output/colors.ts). */
export { statusTone as toneOf } from '../output/colors.js';
