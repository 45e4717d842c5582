/**
 * A terminal program under tmux: a private server (-L) per test, a fixed
 * size, keys in, the screen out. A test that needs tmux fails (rather than
 * skips) when CI=true and tmux is missing.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './wait.js';

export function tmuxAvailable(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Skip on a developer machine without tmux; never in CI (there the test fails and says why). */
export const skipWithoutTmux = !tmuxAvailable() && process.env.CI !== 'true';

export class TmuxTerminal {
  private readonly socket = `gw-test-${randomUUID().slice(0, 8)}`;
  /**
   * The program's exit status, written by the pane's shell: tmux 3.3a leaves
   * #{pane_dead_status} empty for many exits (seen for a program that runs
   * half a second), so it cannot be relied on.
   */
  private readonly statusFile = join(tmpdir(), `${this.socket}.status`);

  constructor(command: string, opts: { width?: number; height?: number; env?: Record<string, string> } = {}) {
    const env = Object.entries(opts.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    // Keep the pane after the program exits, so its last screen can still be read. Set
    // before the session starts, in the same tmux invocation: a program that exits at once is kept too.
    this.tmux(
      ...['start-server', ';', 'set-option', '-g', 'remain-on-exit', 'on', ';'],
      ...['new-session', '-d', '-x', String(opts.width ?? 120), '-y', String(opts.height ?? 30), ...env, `${command}; echo $? > ${this.statusFile}`],
    );
  }

  /** Keys as tmux names them ('Enter', 'Tab', 'Up', 'C-c') or literal text. Each call is one burst of input. */
  send(...keys: string[]): void {
    this.tmux('send-keys', ...keys);
  }

  /** Literal text (no key-name lookup). */
  type(text: string): void {
    this.tmux('send-keys', '-l', '--', text);
  }

  screen(): string {
    // -N keeps trailing spaces: a completed word ends in one.
    return this.tmux('capture-pane', '-p', '-N');
  }

  /** The screen and the scrollback above it (tmux 3.3 pushes a dead pane's screen into the scrollback). */
  allOutput(): string {
    return this.tmux('capture-pane', '-p', '-S', '-');
  }

  lines(): string[] {
    return this.screen().replace(/\n$/, '').split('\n');
  }

  /** The screen's last non-empty line (the status line of the REPL). */
  lastLine(): string {
    return (
      this.lines()
        .filter((l) => l.trim() !== '')
        .at(-1) ?? ''
    );
  }

  async waitForScreen(pred: (screen: string) => boolean, what: string, timeoutMs = 15_000): Promise<string> {
    try {
      return await waitFor(
        () => {
          const s = this.screen();
          return pred(s) ? s : undefined;
        },
        what,
        timeoutMs,
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\nscreen:\n${this.screen()}`, { cause: err });
    }
  }

  /** Whether the program in the pane has exited (its status is known). */
  exited(): boolean {
    return existsSync(this.statusFile) && /^\d+\n$/.test(readFileSync(this.statusFile, 'utf8'));
  }

  /** The exit status of the program in the pane once it has exited (128 + n when signal n ended it). */
  exitStatus(): number {
    if (!this.exited()) throw new Error('the program in the pane has not exited');
    return Number(readFileSync(this.statusFile, 'utf8'));
  }

  /** Resizes the terminal (the program gets SIGWINCH). */
  resize(width: number, height: number): void {
    this.tmux('resize-window', '-x', String(width), '-y', String(height));
  }

  kill(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // already gone
    }
    rmSync(this.statusFile, { force: true });
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }
}
