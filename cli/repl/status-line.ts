/**
 * A status line kept on the terminal's last row. The rows above become a
 * scroll region (DECSTBM), so output and the prompt scroll without touching
 * it; it is drawn with the cursor saved and restored, so the line being typed
 * is undisturbed. readline clears "from the cursor down" when it redraws its
 * line, which erases the last row too: the output it writes through
 * `terminal` is watched for that, and the status is drawn again.
 */
import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import type { WriteStream } from 'node:tty';

const ESC = '\x1b';
/** Erase below (CSI J / CSI 0J) and full clears (CSI 2J), as readline and Ctrl-L write them. */
// eslint-disable-next-line no-control-regex -- matching terminal escape sequences is the point
const ERASES = /\x1b\[[02]?J/;

export class StatusLine {
  private text = '';
  private active = false;
  /** Give this to readline as its output. */
  readonly terminal: Writable & { columns: number; rows: number; isTTY: true };

  constructor(private readonly tty: WriteStream) {
    this.terminal = this.makeProxy();
  }

  /** Reserves the last row. */
  install(): void {
    this.active = true;
    // Make room below the cursor (scrolls when it sits on the last row), then fence the last row off.
    this.tty.write(`\n${ESC}[1A`);
    this.setRegion();
    this.tty.on('resize', this.onResize);
  }

  set(text: string): void {
    this.text = text;
    this.draw();
  }

  /** Gives the row back and leaves the cursor where it was. */
  dispose(): void {
    if (!this.active) return;
    this.active = false;
    this.tty.off('resize', this.onResize);
    this.tty.write(`${ESC}7${ESC}[${this.tty.rows};1H${ESC}[2K${ESC}[r${ESC}8`);
  }

  private draw(): void {
    if (!this.active) return;
    this.tty.write(`${ESC}7${ESC}[${this.tty.rows};1H${ESC}[2K${fit(this.text, this.tty.columns)}${ESC}8`);
  }

  private setRegion(): void {
    // DECSTBM homes the cursor: save and restore around it.
    this.tty.write(`${ESC}7${ESC}[1;${Math.max(1, this.tty.rows - 1)}r${ESC}8`);
    this.draw();
  }

  private readonly onResize = () => {
    this.setRegion();
    // readline listens for resizes on its output.
    this.terminal.emit('resize');
  };

  private makeProxy(): StatusLine['terminal'] {
    const tty = this.tty;
    const redraw = () => this.draw();
    const proxy = new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        const text = chunk.toString();
        tty.write(text);
        if (ERASES.test(text)) redraw();
        callback();
      },
    });
    return Object.defineProperties(proxy, {
      columns: { get: () => tty.columns },
      rows: { get: () => tty.rows - 1 },
      isTTY: { value: true },
    }) as StatusLine['terminal'];
  }
}

/** Cuts coloured text to the terminal width (colour codes take no room). */
function fit(text: string, columns: number): string {
  if (stripVTControlCharacters(text).length <= columns) return text;
  return `${stripVTControlCharacters(text).slice(0, Math.max(0, columns - 1))}…`;
}
