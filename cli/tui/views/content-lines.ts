/** MCP content (tool results, resource contents, prompt messages) as lines: text as is, anything else summarised. */
import { line, seg, textLines, type Line } from '../text.js';

export interface ContentItem {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export function contentLines(items: ContentItem[], width: number): Line[] {
  const out: Line[] = [];
  for (const item of items) {
    if (typeof item.text === 'string') out.push(...textLines(item.text, width));
    else out.push(line(seg(`[${item.type}] ${summary(item)}`, { color: 'cyan' })));
  }
  return out;
}

/** The fields of a non-text item, with large data cut to its size. */
function summary(item: ContentItem): string {
  const fields = Object.entries(item)
    .filter(([k]) => k !== 'type')
    .map(([k, v]) => (typeof v === 'string' && v.length > 80 ? `${k}: ${v.length} characters` : `${k}: ${JSON.stringify(v)}`));
  return fields.join(', ');
}
