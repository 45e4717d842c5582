/**
 * Runs the real command line (`node dist/cli/gateway.js server …`) as a child
 * process, captures everything it prints, and finds the bound URL in its
 * start banner, text or JSON (`--port 0` picks a free port; the banner shows the real one).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../fixtures/spawn.js';

export interface GatewayProcess {
  child: ChildProcess;
  /** Base URL from the banner, e.g. http://127.0.0.1:40123. */
  url: string;
  stdout(): string;
  stderr(): string;
  /** SIGTERM (graceful shutdown), then waits for the exit; SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; killed: boolean }>;
  /** The exit of a gateway that stops by itself (POST /shutdown): no signal is sent. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartCliOptions {
  /** Arguments after `server`. */
  args: string[];
  /**
   * Add `--wait` (the default here): the banner comes once every backend has had its first
   * connect attempt, as most tests want; false sees the banner the moment the server listens.
   */
  wait?: boolean;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Defaults to this repository's build. */
  cliPath?: string;
  timeoutMs?: number;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export function cliPath(): string {
  return join(repoRoot(), 'dist', 'cli', 'gateway.js');
}

/** Starts `gateway server` and resolves once the banner names the listening URL. */
export async function startGatewayCli(opts: StartCliOptions): Promise<GatewayProcess> {
  const child = spawn(process.execPath, [opts.cliPath ?? cliPath(), 'server', ...(opts.wait === false ? [] : ['--wait']), ...opts.args], {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      child.kill('SIGKILL');
      reject(new Error(`gateway did not print its banner within ${opts.timeoutMs ?? 30_000} ms\nstdout:\n${out}\nstderr:\n${err}`));
    }, opts.timeoutMs ?? 30_000);
    const check = () => {
      const url = listeningUrl(out);
      if (url === undefined) return;
      cleanup();
      resolve(url);
    };
    const onExit = ({ code, signal }: { code: number | null; signal: NodeJS.Signals | null }) => {
      cleanup();
      reject(new Error(`gateway exited before listening (code ${code}, signal ${signal})\nstdout:\n${out}\nstderr:\n${err}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout.off('data', check);
    };
    child.stdout.on('data', check);
    void exited.then(onExit);
  });

  return {
    child,
    url,
    stdout: () => out,
    stderr: () => err,
    exited,
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return { ...(await exited), killed: false };
      child.kill('SIGTERM');
      let killed = false;
      const timer = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, graceMs);
      const status = await exited;
      clearTimeout(timer);
      return { ...status, killed };
    },
  };
}

/**
 * The base URL (no `/mcp`) the gateway announced in `output`: the banner's
 * `Streamable HTTP  http://…/mcp` line, or a JSON line carrying `mcp_url`, or a
 * `url` on a line whose message says it is listening (a JSON banner). Other JSON
 * log lines may carry a backend's `url`, hence the last condition.
 */
export function listeningUrl(output: string): string | undefined {
  for (const line of output.split('\n')) {
    const banner = /Streamable HTTP\s+(https?:\/\/\S+)\/mcp/.exec(line);
    if (banner) return banner[1];
    if (!line.startsWith('{')) continue;
    let record: { mcp_url?: unknown; url?: unknown; msg?: unknown };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      continue; // a partial line: the rest has not arrived yet
    }
    const url = typeof record.mcp_url === 'string' ? record.mcp_url : typeof record.msg === 'string' && /listening/i.test(record.msg) ? record.url : undefined;
    if (typeof url === 'string' && /^https?:\/\//.test(url)) return url.replace(/\/mcp\/?$/, '');
  }
  return undefined;
}

/** Runs `gateway server` expecting it to fail at startup; resolves with its exit code and output. */
export function runGatewayCliToExit(opts: StartCliOptions): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [opts.cliPath ?? cliPath(), 'server', ...(opts.wait === false ? [] : ['--wait']), ...opts.args], {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gateway did not exit within ${opts.timeoutMs ?? 15_000} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, opts.timeoutMs ?? 15_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      live.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}
