/**
 * Colour only for a person: on a terminal, unless NO_COLOR is set or
 * --no-color was given (FORCE_COLOR forces it, as picocolors reads it).
 * Phases and health words get one colour each, the same everywhere.
 */
import pc from 'picocolors';

export type Colors = ReturnType<typeof pc.createColors>;

export function wantColor(stream: object, noColorFlag = false, env: NodeJS.ProcessEnv = process.env): boolean {
  if (noColorFlag || env.NO_COLOR) return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return true;
  return isTerminal(stream);
}

export function colors(enabled: boolean): Colors {
  return pc.createColors(enabled);
}

const GREEN = new Set(['Ready', 'healthy', 'connected', 'enabled', 'running', 'true', 'info']);
const YELLOW = new Set(['Degraded', 'degraded', 'connecting', 'disconnecting', 'Initializing', 'Pending', 'warning', 'unknown']);
const RED = new Set(['Failed', 'unhealthy', 'unreachable', 'disconnected', 'error', 'false', 'ShuttingDown']);

/** The colour of a phase, health status or state word by what it means (undefined: none). */
export function statusTone(word: string): 'green' | 'yellow' | 'red' | undefined {
  if (GREEN.has(word)) return 'green';
  if (YELLOW.has(word)) return 'yellow';
  if (RED.has(word)) return 'red';
  return undefined;
}

/** Colours a phase, health status or state word by what it means. */
export function paintStatus(c: Colors, word: string): string {
  const tone = statusTone(word);
  return tone ? c[tone](word) : word;
}

/** Whether an output stream is a terminal (a Writable in a clipanion context may be a tty.WriteStream). */
export function isTerminal(stream: object): boolean {
  return (stream as { isTTY?: unknown }).isTTY === true;
}
