/**
 * The run of a local session behind a server: the process that writes its
 * log file now. A session name used again (`gateway server -d --name X`
 * after `gateway stop X`) appends to the same log file, so a line belongs to
 * this run only when the pid on it is this run's. The pid is read from the
 * session file each time it is asked for: a session restarted while the TUI
 * runs is a new run.
 */
import { readSessions } from '../../sessions/session-files.js';
import { sessionManagementUrl } from '../../sessions/session-record.js';

export interface SessionRun {
  logFile: string;
  pid: number;
}

/** The running session whose management API is at `url` and that logs to `logFile`, if there is one. */
export function currentRun(url: string, logFile: string, env: NodeJS.ProcessEnv = process.env): SessionRun | undefined {
  const found = readSessions(env).find((s) => s.running && s.record.log_file === logFile && sessionManagementUrl(s.record) === url);
  return found && { logFile, pid: found.record.pid };
}
