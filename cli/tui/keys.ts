/**
 * Keystrokes from the terminal's input. Ink splits what arrives into escape
 * sequences and runs of plain characters ("jjj", "abc\r" when typed faster
 * than a frame, "\x1b:" for Esc then ':'); each is decoded here, character by
 * character: nothing typed fast is lost, merged or reordered.
 */

export interface Keystroke {
  /** The character typed, or a key name: return, escape, tab, backtab, backspace, delete, up, down, left, right, pageup, pagedown, home, end. */
  name: string;
  ctrl: boolean;
  /** Printable text it types, for text fields. */
  text?: string;
}

const named = (name: string): Keystroke => ({ name, ctrl: false });

/** Final bytes of CSI and SS3 sequences (`ESC [ A`, `ESC O A`, `ESC [ 1 ; 5 A`). */
const FINAL_KEYS: Record<string, string> = { A: 'up', B: 'down', C: 'right', D: 'left', H: 'home', F: 'end', Z: 'backtab' };
/** `ESC [ n ~` sequences. */
const TILDE_KEYS: Record<string, string> = { '1': 'home', '7': 'home', '4': 'end', '8': 'end', '3': 'delete', '5': 'pageup', '6': 'pagedown' };

/** The keystrokes in terminal input (an event of Ink's parser, or any run of input). */
export function decodeKeys(data: string): Keystroke[] {
  const keys: Keystroke[] = [];
  const chars = [...data];
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] !== '\x1b') {
      keys.push(decodeChar(chars[i]));
      continue;
    }
    const intro = chars[i + 1];
    if (intro !== '[' && intro !== 'O') {
      // A lone Esc, or Esc and then a key arriving together.
      keys.push(named('escape'));
      continue;
    }
    // CSI (`ESC [ 1 ; 5 A`, `ESC [ 5 ~`) or SS3 (`ESC O A`): parameters, then one final byte.
    let j = i + 2;
    while (j < chars.length && /[\d;:]/.test(chars[j])) j++;
    if (j >= chars.length) {
      keys.push(named('escape'));
      continue;
    }
    const params = chars.slice(i + 2, j).join('');
    const name = chars[j] === '~' ? TILDE_KEYS[params.split(';')[0]] : FINAL_KEYS[chars[j]];
    if (name) keys.push(named(name));
    i = j;
  }
  return keys;
}

function decodeChar(ch: string): Keystroke {
  if (ch === '\r' || ch === '\n') return named('return');
  if (ch === '\t') return named('tab');
  if (ch === '\x7f' || ch === '\b') return named('backspace');
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0x20) return { name: String.fromCharCode(code + 96), ctrl: true };
  return { name: ch, ctrl: false, text: ch };
}

/**
 * Whether `k` is the key a binding names: a character (`r`, `G`, `/`), a key
 * name (`enter`, `esc`, `up`), or `ctrl+<letter>`.
 */
export function keyMatches(k: Keystroke, spec: string): boolean {
  if (spec.startsWith('ctrl+')) return k.ctrl && k.name === spec.slice(5);
  if (k.ctrl) return false;
  return k.name === (ALIASES[spec] ?? spec);
}

const ALIASES: Record<string, string> = { enter: 'return', esc: 'escape', space: ' ', pgup: 'pageup', pgdn: 'pagedown' };

/** How a binding's key is shown in help and hints. */
export function keyLabel(spec: string): string {
  if (spec.startsWith('ctrl+')) return `Ctrl-${spec.slice(5).toUpperCase()}`;
  return LABELS[spec] ?? spec;
}

const LABELS: Record<string, string> = { enter: 'Enter', esc: 'Esc', space: 'Space', up: '↑', down: '↓', pgup: 'PgUp', pgdn: 'PgDn', tab: 'Tab' };
