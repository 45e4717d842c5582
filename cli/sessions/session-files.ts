/**
 * Reading, claiming and removing session files. A file is claimed with a
 * hard link from a private temporary file, which is atomic and fails when
 * the name is taken, so two servers starting at once cannot both own a name.
 */
import { linkSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { sessionsDir } from '../../runtime/state-dir.js';
import { parseSessionRecord, sessionFile, type SessionRecord } from './session-record.js';
import { processRuns } from './process-state.js';

/** A session file as found on disk, and whether its process still runs. */
export interface FoundSession {
  record: SessionRecord;
  file: string;
  /** False for a stale file: the process is gone, a zombie, or its pid was reused. */
  running: boolean;
}

export function readSession(name: string, env?: NodeJS.ProcessEnv): FoundSession | null {
  const file = sessionFile(name, env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const record = parseSessionRecord(text);
  if (!record) return { record: brokenRecord(name), file, running: false };
  return { record, file, running: processRuns(record.pid, new Date(record.started_at)) };
}

/** Every session file, sorted by name; stale ones included (see `pruneStale`). */
export function readSessions(env?: NodeJS.ProcessEnv): FoundSession[] {
  let names: string[];
  try {
    names = readdirSync(sessionsDir(env));
  } catch {
    return [];
  }
  return names
    .filter((f) => f.endsWith('.json'))
    .map((f) => readSession(f.slice(0, -'.json'.length), env))
    .filter((s): s is FoundSession => s !== null)
    .sort((a, b) => a.record.name.localeCompare(b.record.name));
}

/** Removes the files of sessions whose process is gone; returns the live ones and the names pruned. */
export function pruneStale(sessions: FoundSession[]): { live: FoundSession[]; pruned: string[] } {
  const pruned: string[] = [];
  for (const s of sessions) {
    if (s.running) continue;
    removeIfUnchanged(s);
    pruned.push(s.record.name);
  }
  return { live: sessions.filter((s) => s.running), pruned };
}

/**
 * Writes `record` as its name's session file unless a running session holds
 * that name (a stale file is replaced). Returns the holder when refused.
 */
export function claimSession(record: SessionRecord, env?: NodeJS.ProcessEnv): { claimed: true } | { claimed: false; holder: SessionRecord } {
  const file = sessionFile(record.name, env);
  mkdirSync(sessionsDir(env), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(tmp, file);
        return { claimed: true };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw err;
      }
      const holder = readSession(record.name, env);
      if (holder?.running) return { claimed: false, holder: holder.record };
      if (holder) removeIfUnchanged(holder);
    }
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Removes this process's own session file (only if it is still ours). */
export function releaseSession(name: string, pid = process.pid, env?: NodeJS.ProcessEnv): void {
  const found = readSession(name, env);
  if (found && found.record.pid === pid) rmSync(found.file, { force: true });
}

/** Removes a session file unless it was rewritten meanwhile (by a new server of that name). */
export function removeIfUnchanged(s: FoundSession): void {
  let current: SessionRecord | null;
  try {
    current = parseSessionRecord(readFileSync(s.file, 'utf8'));
  } catch {
    return;
  }
  if (current === null || (current.pid === s.record.pid && current.started_at === s.record.started_at)) rmSync(s.file, { force: true });
}

/** Stands in for a file that holds no session record, so it can be listed and pruned. */
function brokenRecord(name: string): SessionRecord {
  return { name, pid: 0, host: '', port: 0, config: '', log_file: null, started_at: new Date(0).toISOString() };
}
