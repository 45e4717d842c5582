/**
 * The local gateway a client means when nothing names one (no `-s`, no
 * `$GATEWAY_URL`): the running `default` session, else the only running
 * session. With several running and none named `default` there is no
 * obvious one, and callers fall back to what they document.
 */
import { readSession, readSessions, type FoundSession } from './session-files.js';
import { DEFAULT_SESSION_NAME } from './session-record.js';

export function defaultLocalSession(env?: NodeJS.ProcessEnv): FoundSession | undefined {
  const named = readSession(DEFAULT_SESSION_NAME, env);
  if (named?.running) return named;
  const running = readSessions(env).filter((s) => s.running);
  return running.length === 1 ? running[0] : undefined;
}
