/**
 * The running server's side of sessions: pick the name before starting,
 * claim the session file once listening, remove it on the way out.
 */
import { readSession, claimSession, releaseSession } from './session-files.js';
import { DEFAULT_SESSION_NAME, sessionNameProblem, type SessionRecord } from './session-record.js';

export class SessionNameTaken extends Error {
  constructor(readonly holder: SessionRecord) {
    super(
      `A gateway session named "${holder.name}" is already running (pid ${holder.pid}, port ${holder.port}). ` +
        `Stop it with \`gateway stop ${holder.name}\` or pick another --name.`,
    );
  }
}

/**
 * Checks a requested name before the server starts (fail fast). Without an
 * explicit name a foreground server takes `default`, or `default-2`, `-3`…
 * when that is running, so several foreground servers can coexist.
 */
export function precheckName(explicit: string | undefined, env?: NodeJS.ProcessEnv): void {
  if (explicit === undefined) return;
  const problem = sessionNameProblem(explicit);
  if (problem) throw new Error(problem);
  const found = readSession(explicit, env);
  if (found?.running) throw new SessionNameTaken(found.record);
}

/** Writes the session file; an explicit name must be free, an implicit one moves on to the next free `default-N`. */
export function claimName(explicit: string | undefined, record: Omit<SessionRecord, 'name'>, env?: NodeJS.ProcessEnv): SessionRecord {
  for (let n = 1; ; n++) {
    const name = explicit ?? (n === 1 ? DEFAULT_SESSION_NAME : `${DEFAULT_SESSION_NAME}-${n}`);
    const full = { name, ...record };
    const result = claimSession(full, env);
    if (result.claimed) return full;
    if (explicit !== undefined) throw new SessionNameTaken(result.holder);
  }
}

/** Removes the session file when the process ends, however it ends (normal exit, uncaught error). */
export function releaseOnExit(name: string, env?: NodeJS.ProcessEnv): () => void {
  const release = () => releaseSession(name, process.pid, env);
  process.once('exit', release);
  return release;
}
