/**
 * The label/value lines of a page, aligned: every label of the page in one
 * dimmed column as wide as its widest label plus a gap, so every value starts
 * at the same column. A text value too long for the line wraps under itself.
 */
import { GAP, textWidth } from '../columns.js';
import { seg, textLines, type Line, type Segment } from '../text.js';

export interface Field {
  label: string;
  /** Text or one segment wraps; a line of several segments stays one line. */
  value: string | Segment | Line;
}

/** What a page's lines are made of: fields and plain lines, in order. */
export type PageItem = Field | Line;

export const field = (label: string, value: Field['value']): Field => ({ label, value });

/** The items as lines, every field's value at the same column. */
export function layoutFields(items: PageItem[], width: number): Line[] {
  const labels = items.filter(isField).map((f) => textWidth(f.label));
  const labelWidth = Math.max(0, ...labels) + GAP;
  return items.flatMap((item) => (isField(item) ? fieldLines(item, labelWidth, width) : [item]));
}

function fieldLines(f: Field, labelWidth: number, width: number): Line[] {
  const label = seg(f.label + ' '.repeat(labelWidth - textWidth(f.label)), { dim: true });
  const indent = seg(' '.repeat(labelWidth));
  const values = valueLines(f.value, width - labelWidth);
  return values.map((v, i) => [i === 0 ? label : indent, ...v]);
}

function valueLines(value: Field['value'], width: number): Line[] {
  if (Array.isArray(value)) return [value];
  const { text, ...style } = typeof value === 'string' ? seg(value) : value;
  const lines = textLines(text, width, style);
  return lines.length ? lines : [[]];
}

const isField = (item: PageItem): item is Field => !Array.isArray(item);
