/**
 * `gateway server --detach`: the command re-runs itself as a background
 * process (its own session, output appended to the log file) and waits until
 * that server listens, or exits, over an IPC channel that is closed as soon
 * as the answer arrived.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { logsDir } from '../../runtime/state-dir.js';

/** Set for the background server: its log file (recorded in the session file). */
const LOG_FILE_ENV = 'GATEWAY_SESSION_LOG_FILE';

export function defaultLogFile(name: string, env?: NodeJS.ProcessEnv): string {
  return join(logsDir(env), `${name}.log`);
}

interface ListeningMessage {
  type: 'listening';
  name: string;
  url: string;
  pid: number;
}

export type DetachResult = { ok: true; name: string; url: string; pid: number } | { ok: false; exitCode: number | null; output: string };

/** Spawns `node <entry> server <args>` in the background and waits for it to listen or fail. */
export async function startDetached(opts: { entry: string; args: string[]; logFile: string; cwd?: string }): Promise<DetachResult> {
  mkdirSync(dirname(opts.logFile), { recursive: true, mode: 0o700 });
  const fd = openSync(opts.logFile, 'a', 0o600);
  const offset = statSync(opts.logFile).size;
  const child = spawn(process.execPath, [opts.entry, 'server', ...opts.args], {
    cwd: opts.cwd,
    detached: true,
    stdio: ['ignore', fd, fd, 'ipc'],
    env: { ...process.env, [LOG_FILE_ENV]: opts.logFile },
  });
  closeSync(fd);
  return new Promise<DetachResult>((resolve) => {
    child.once('message', (m: ListeningMessage) => {
      child.disconnect();
      child.unref();
      resolve({ ok: true, name: m.name, url: m.url, pid: m.pid });
    });
    child.once('exit', (code) => resolve({ ok: false, exitCode: code, output: readFrom(opts.logFile, offset) }));
    child.once('error', (err) => resolve({ ok: false, exitCode: null, output: err.message }));
  });
}

function readFrom(file: string, offset: number): string {
  try {
    return readFileSync(file).subarray(offset).toString('utf8');
  } catch {
    return '';
  }
}

/**
 * In the server: the log file when this process was started by `--detach`
 * (removed from the environment, so backends do not inherit it).
 */
export function takeDetachedLogFile(): string | undefined {
  const file = process.env[LOG_FILE_ENV];
  delete process.env[LOG_FILE_ENV];
  return file || undefined;
}

/** In the server: tells the waiting `--detach` parent that it listens, then drops the channel. */
export function notifyDetachParent(info: Omit<ListeningMessage, 'type'>): void {
  if (!process.send) return;
  const message: ListeningMessage = { type: 'listening', ...info };
  process.send(message, () => process.disconnect?.());
}
