/**
 * Splits a Markdown file into its YAML front matter and body. Hand-written
 * rather than gray-matter: that library also evaluates `---js` blocks, which a
 * gateway loading files it did not write must never do. The YAML is parsed
 * with the failsafe schema (every scalar a string), as Agent Skills metadata
 * is string-valued.
 */
import { parseDocument } from 'yaml';

export interface FrontMatter {
  data: unknown;
  body: string;
}

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*$/m;

/** Throws an Error whose message says what is wrong (with the line, for YAML errors). */
export function parseFrontMatter(text: string): FrontMatter {
  const open = OPENING.exec(text);
  if (!open) throw new Error('must start with YAML front matter: a line "---", the YAML, then a closing "---"');
  const rest = text.slice(open[0].length);
  const close = CLOSING.exec(rest);
  if (!close) throw new Error('front matter is not closed: no line "---" after the opening one');
  const yaml = rest.slice(0, close.index);
  const doc = parseDocument(yaml, { schema: 'failsafe', prettyErrors: true });
  if (doc.errors.length > 0) throw new Error(`front matter is not valid YAML: ${doc.errors[0].message.split('\n')[0]}`);
  const body = rest.slice(close.index + close[0].length).replace(/^\r?\n/, '');
  return { data: doc.toJS() ?? {}, body };
}
