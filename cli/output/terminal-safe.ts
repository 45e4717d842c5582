/**
 * Text from a backend (its stderr, results, descriptions, event messages) is
 * not trusted with the terminal: escape sequences could set the title, write
 * the clipboard (OSC 52) or clear the screen, and a bare carriage return
 * could overwrite what is drawn. Newlines and tabs stay; every other control
 * character becomes a visible "?" so nothing disappears silently.
 */
import { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { stripVTControlCharacters } from 'node:util';

// C0 controls except \t and \n, DEL, and the C1 range.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function terminalSafe(text: string): string {
  return stripVTControlCharacters(text).replace(CONTROL, '?');
}

/**
 * A copy of JSON data with every string, keys included, made terminal-safe:
 * what a table or a line of text is drawn from. Numbers, booleans and null
 * stay as they are.
 */
export function terminalSafeData<T>(value: T): T {
  return safeCopy(value) as T;
}

function safeCopy(value: unknown): unknown {
  if (typeof value === 'string') return terminalSafe(value);
  if (Array.isArray(value)) return value.map(safeCopy);
  if (typeof value === 'object' && value !== null) {
    // Own data properties (Object.fromEntries), so a key such as `__proto__` stays a key.
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [terminalSafe(key), safeCopy(item)]));
  }
  return value;
}

/**
 * A stream that writes what it is given to `out` made terminal-safe, for
 * output that arrives in chunks (a container's logs). Chunks are decoded as
 * UTF-8 across their boundaries; an escape sequence split between two chunks
 * loses its ESC to "?" instead of being stripped, which is as harmless.
 */
export function terminalSafeWriter(out: Writable): Writable {
  const decoder = new StringDecoder('utf8');
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      out.write(terminalSafe(decoder.write(chunk)), done);
    },
    final(done) {
      const rest = decoder.end();
      if (rest) out.write(terminalSafe(rest));
      done();
    },
  });
}
