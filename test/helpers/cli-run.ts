/**
 * Runs `gateway` or `gateway-client` (the compiled bins) as real processes
 * to completion, with a given environment (tests pass their own
 * GATEWAY_STATE_DIR) and optional standard input.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../fixtures/spawn.js';

export const GATEWAY_BIN = join(repoRoot(), 'dist', 'cli', 'gateway.js');
export const CLIENT_BIN = join(repoRoot(), 'dist', 'cli', 'gateway-client.js');

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runBin(
  bin: string,
  args: string[],
  /** `closeStdout`: close the reading end of its stdout at once, like `| head` that has read enough (stdout is then ''). */
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number; closeStdout?: boolean } = {},
): Promise<Finished> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: opts.cwd ?? repoRoot(),
    env: { ...process.env, ...opts.env },
    stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  if (opts.input !== undefined) child.stdin!.end(opts.input);
  if (opts.closeStdout) child.stdout!.destroy();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${bin} ${args.join(' ')} did not finish within ${opts.timeoutMs ?? 30_000} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, opts.timeoutMs ?? 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `gateway-client … -o json`, parsed; fails the test with the output when the exit code is not `expectCode`. */
export async function clientJson(url: string, args: string[], env: NodeJS.ProcessEnv = {}, expectCode = 0): Promise<any> {
  const r = await runBin(CLIENT_BIN, ['-s', url, '-o', 'json', ...args], { env });
  if (r.code !== expectCode)
    throw new Error(`gateway-client ${args.join(' ')} exited ${r.code}, expected ${expectCode}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return JSON.parse(r.stdout);
}
