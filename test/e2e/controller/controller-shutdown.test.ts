/**
 * Graceful shutdown of the real command line: `gateway server` as a child
 * process with stdio backends (one of them leading a process group with a
 * grandchild, like `npx` does). SIGTERM or SIGINT must end it with exit code 0,
 * every backend moved to ShuttingDown, and no backend process left behind.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import { stringify } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fixtureCommand, fixtureMainPath } from '../../fixtures/spawn.js';
import { startGatewayCli } from '../../helpers/gateway-cli.js';
import { startGateway } from '../../helpers/gateway-harness.js';

/** Alive and not a zombie (an exited child nobody reaped yet is gone for our purpose). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Signals are delivered asynchronously: wait (bounded) until the process is gone. */
async function gone(pid: number, limitMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

async function whoami(client: Client, tool: string): Promise<number> {
  const r = await client.callTool({ name: tool, arguments: {} });
  return JSON.parse((r.content as Array<{ text: string }>)[0].text).pid;
}

function setup(withGroup: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'gw-shutdown-'));
  const sleepPidFile = join(dir, 'sleep.pid');
  const plain = fixtureCommand(['--name', 'plain']);
  const backends: Record<string, unknown> = { plain: { type: 'stdio', ...plain } };
  if (withGroup) {
    // The shell starts a grandchild, records its pid, then becomes the fixture (same pid, same group).
    const script = `sleep 1000 & echo $! > '${sleepPidFile}'; exec '${process.execPath}' '${fixtureMainPath()}' --transport stdio --name grp`;
    backends.grp = { type: 'stdio', command: '/bin/sh', args: ['-c', script] };
  }
  const configPath = join(dir, 'config.yaml');
  writeFileSync(
    configPath,
    stringify({
      server: { host: '127.0.0.1', port: 0, shutdown_timeout_s: 5 },
      audit: { file: join(dir, 'audit.jsonl') },
      feature_flags: { hot_reload: true },
      health: { interval_s: 0.2 },
      backends,
    }),
  );
  return { dir, configPath, sleepPidFile };
}

function shuttingDownLines(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      try {
        const rec = JSON.parse(line) as { event?: string; backend?: string; msg?: string };
        return rec.event === 'phase_changed' && / -> ShuttingDown /.test(rec.msg ?? '') ? [rec.backend!] : [];
      } catch {
        return [];
      }
    });
}

describe('graceful shutdown of `gateway server`', () => {
  it('SIGTERM: exit 0, backends ShuttingDown, every backend process and its group gone', async () => {
    const { dir, configPath, sleepPidFile } = setup(true);
    const gw = await startGatewayCli({ args: ['--config', configPath, '-v', '--log-format', 'json'], cwd: dir });
    const client = new Client({ name: 'shutdown-test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
      const plainPid = await whoami(client, 'plain_whoami');
      const grpPid = await whoami(client, 'grp_whoami');
      const sleepPid = Number(readFileSync(sleepPidFile, 'utf8').trim());
      for (const pid of [plainPid, grpPid, sleepPid]) expect(alive(pid), `pid ${pid} before shutdown`).toBe(true);

      // A client session is still open while the gateway stops.
      const status = await gw.stop();
      expect(status, gw.stderr()).toEqual({ code: 0, signal: null, killed: false });
      expect(await gone(plainPid), 'plain backend').toBe(true);
      expect(await gone(grpPid), 'group leader').toBe(true);
      expect(await gone(sleepPid), 'grandchild in the backend process group').toBe(true);
      expect(shuttingDownLines(gw.stdout()).sort()).toEqual(['grp', 'plain']);
      expect(gw.stdout()).toContain('gateway shutting down');
    } finally {
      await client.close().catch(() => undefined);
      await gw.stop(1000);
    }
  });

  it('SIGINT: exit 0 and the backend process is gone', async () => {
    const { dir, configPath } = setup(false);
    const gw = await startGatewayCli({ args: ['--config', configPath, '-v', '--log-format', 'json'], cwd: dir });
    const client = new Client({ name: 'shutdown-test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
      const pid = await whoami(client, 'plain_whoami');
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        gw.child.once('exit', (code, signal) => resolve({ code, signal })),
      );
      gw.child.kill('SIGINT');
      expect(await exited, gw.stderr()).toEqual({ code: 0, signal: null });
      expect(await gone(pid)).toBe(true);
      expect(shuttingDownLines(gw.stdout())).toEqual(['plain']);
    } finally {
      await client.close().catch(() => undefined);
      await gw.stop(1000);
    }
  });

  it('a backend stuck in connect does not hold shutdown up: its process is ended', async () => {
    // Never answers initialize; the connect timeout (10 min) is far beyond the test's.
    const h = await startGateway(
      { backends: { hang: { type: 'stdio', command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], timeouts: { connect_s: 600 } } } },
      { waitForBackends: false },
    );
    await h.waitForEvent((e) => e.backend === 'hang' && e.stage === 'connecting');
    const pid = h.gateway.controller.connection('hang')!.pid!;
    expect(alive(pid)).toBe(true);
    await h.close();
    expect(await gone(pid)).toBe(true);
    expect(h.gateway.controller.backendRecord('hang')!.phase).toBe('ShuttingDown');
    expect(h.gateway.controller.state).toBe('stopped');
  });
});
