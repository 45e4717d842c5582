/**
 * Splits a text stream into lines (a backend's stderr, for the log): calls
 * `onLine` for each complete, non-empty line, and for the rest at `end()`.
 */
import { StringDecoder } from 'node:string_decoder';

export class TextLineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer | string): void {
    this.pending += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    let nl: number;
    while ((nl = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, nl).replace(/\r$/, '');
      this.pending = this.pending.slice(nl + 1);
      if (line) this.onLine(line);
    }
  }

  end(): void {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    if (rest) this.onLine(rest);
  }
}
