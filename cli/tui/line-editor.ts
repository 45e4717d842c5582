/**
 * Editing one line of text, as a pure function of the buffer and a
 * keystroke. The TUI keeps the buffer outside React and applies every
 * keystroke to the newest buffer, in order, as it arrives: typing faster
 * than the screen redraws loses nothing.
 */
import type { Keystroke } from './keys.js';

export interface LineBuffer {
  text: string;
  /** In characters (code points), 0…length. */
  cursor: number;
}

export const bufferOf = (text: string): LineBuffer => ({ text, cursor: [...text].length });

/** The buffer after `k`, or undefined when `k` does not edit (Enter, Esc, Tab, arrows up and down…). */
export function editLine(buf: LineBuffer, k: Keystroke): LineBuffer | undefined {
  const chars = [...buf.text];
  const at = Math.min(buf.cursor, chars.length);
  const make = (next: string[], cursor: number): LineBuffer => ({ text: next.join(''), cursor });
  if (k.text !== undefined) return make([...chars.slice(0, at), k.text, ...chars.slice(at)], at + 1);
  const key = k.ctrl ? `ctrl+${k.name}` : k.name;
  switch (key) {
    case 'backspace':
    case 'ctrl+h':
      return at === 0 ? buf : make([...chars.slice(0, at - 1), ...chars.slice(at)], at - 1);
    case 'delete':
    case 'ctrl+d':
      return make([...chars.slice(0, at), ...chars.slice(at + 1)], at);
    case 'left':
    case 'ctrl+b':
      return { ...buf, cursor: Math.max(0, at - 1) };
    case 'right':
    case 'ctrl+f':
      return { ...buf, cursor: Math.min(chars.length, at + 1) };
    case 'home':
    case 'ctrl+a':
      return { ...buf, cursor: 0 };
    case 'end':
    case 'ctrl+e':
      return { ...buf, cursor: chars.length };
    case 'ctrl+u':
      return make(chars.slice(at), 0);
    case 'ctrl+k':
      return make(chars.slice(0, at), at);
    case 'ctrl+w': {
      let start = at;
      while (start > 0 && chars[start - 1] === ' ') start--;
      while (start > 0 && chars[start - 1] !== ' ') start--;
      return make([...chars.slice(0, start), ...chars.slice(at)], start);
    }
    default:
      return undefined;
  }
}
