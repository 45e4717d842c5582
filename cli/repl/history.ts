/**
 * The REPL's history file, `<state>/client_history`: one command per line,
 * oldest first, no duplicates (the latest use wins), at most 1,000 lines.
 * Lines that carry a token (`-t …`) are kept for the session only.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stateDir } from '../../runtime/state-dir.js';

export const HISTORY_SIZE = 1000;

export function historyFile(env?: NodeJS.ProcessEnv): string {
  return join(stateDir(env), 'client_history');
}

/** Newest first, as readline wants it. */
export function loadHistory(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return dedupeNewestFirst(
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .reverse(),
  );
}

/** A line that passes a token on the command line is not written down. */
const CARRIES_TOKEN = /(^|\s)(-t|--token)(\s|=|$)/;

/** `entries` newest first (readline's order). */
export function saveHistory(file: string, entries: string[]): void {
  const lines = dedupeNewestFirst(entries.map((e) => e.trim()).filter((e) => e !== '' && !CARRIES_TOKEN.test(e))).reverse();
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, lines.length ? `${lines.join('\n')}\n` : '', { mode: 0o600 });
  } catch {
    // History is a convenience: a read-only state dir must not break the REPL.
  }
}

function dedupeNewestFirst(entries: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const e of entries) {
    if (seen.has(e)) continue;
    seen.add(e);
    out.push(e);
    if (out.length === HISTORY_SIZE) break;
  }
  return out;
}
