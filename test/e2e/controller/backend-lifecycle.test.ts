/**
 * Backends that cannot start, start late, go away (stdio and HTTP, with a
 * call in flight), time out; and process-group cleanup of stdio backends.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startGateway, type Harness } from '../../helpers/gateway-harness.js';
import { fixtureCommand, startHttpFixture, type HttpFixture } from '../../fixtures/spawn.js';
import { collectNotifications, type NotificationLog } from '../../helpers/notifications.js';
import { freePort } from '../../helpers/ports.js';
import { isAlive, waitFor } from '../../helpers/wait.js';

function stdio(args: string[], extra: Record<string, unknown> = {}) {
  const f = fixtureCommand(args);
  return { type: 'stdio', command: f.command, args: f.args, ...extra };
}

/** A shell launch that records its pid (which `exec` hands on) in `pidFile`. */
function shellStdio(script: string, pidFile: string, extra: Record<string, unknown> = {}) {
  return { type: 'stdio', command: '/bin/sh', args: ['-c', `echo $$ > '${pidFile}'; ${script}`], ...extra };
}

const readPid = (file: string) => waitFor(() => Number(readFileSync(file, 'utf8').trim()) || undefined, `pid in ${file}`);

async function toolNames(c: Client): Promise<string[]> {
  return (await c.listTools()).tools.map((t) => t.name);
}

/** Starts a slow call and resolves once its first progress notification arrived (so it is in flight at the backend). */
function slowCallInFlight(c: Client, name: string): { result: Promise<unknown>; started: Promise<void> } {
  let markStarted!: () => void;
  const started = new Promise<void>((r) => (markStarted = r));
  const result = c
    .callTool({ name, arguments: { steps: 600, delay_ms: 100 } }, undefined, {
      onprogress: () => markStarted(),
      timeout: 120_000,
      resetTimeoutOnProgress: true,
    })
    .then(
      (v) => v,
      (e: unknown) => e,
    );
  return { result, started };
}

describe('core: backends that fail, arrive late and go away', () => {
  let h: Harness;
  let client: Client;
  let notes: NotificationLog;
  let sse: HttpFixture;
  let http: HttpFixture;
  let late: HttpFixture | undefined;
  let latePort: number;
  let silentPidFile: string;

  beforeAll(async () => {
    [sse, http, latePort] = await Promise.all([
      startHttpFixture({ transport: 'sse', name: 'web' }),
      startHttpFixture({ transport: 'streamable-http', name: 'api' }),
      freePort(),
    ]);
    silentPidFile = join(mkdtempSync(join(tmpdir(), 'gw-silent-')), 'pid');
    h = await startGateway({
      controller: { backoff_initial_ms: 150, backoff_max_ms: 1000, backoff_jitter: 0 },
      // No periodic health check: losing a backend must be noticed without one.
      health: { interval_s: 3600 },
      backends: {
        good: stdio(['--name', 'good'], { timeouts: { request_s: 120 } }),
        tight: stdio(['--name', 'tight'], { timeouts: { request_s: 0.5 } }),
        missing: { type: 'stdio', command: '/nonexistent/gateway-test-binary' },
        crashes: { type: 'stdio', command: process.execPath, args: ['-e', 'process.exit(3)'] },
        // Starts but never speaks MCP: the connect timeout must fail it and end the process.
        silent: shellStdio(`exec '${process.execPath}' -e 'setInterval(() => {}, 1000)'`, silentPidFile, { timeouts: { connect_s: 0.5 } }),
        late: { type: 'streamable-http', url: `http://127.0.0.1:${latePort}/mcp` },
        web: { type: 'sse', url: sse.url, timeouts: { request_s: 120 } },
        api: { type: 'streamable-http', url: http.url, timeouts: { request_s: 120 } },
      },
    });
    client = await h.connect();
    notes = collectNotifications(client);
  });

  afterAll(async () => {
    await h?.close();
    await Promise.all([sse?.stop(), http?.stop(), late?.stop()]);
  });

  const record = (name: string) => h.gateway.controller.backendRecords().find((r) => r.name === name)!;

  it('a backend that cannot start is Failed with its reason; the others serve', async () => {
    expect(record('good').phase).toBe('Ready');
    expect(record('web').phase).toBe('Ready');
    expect(record('api').phase).toBe('Ready');
    // The failing ones are being retried (phase may be Initializing now); their failures are events.
    const failure = (b: string) => h.waitForEvent((e) => e.stage === 'error' && e.backend === b);
    expect((await failure('missing')).message).toMatch(/ENOENT|nonexistent/);
    expect((await failure('crashes')).message).toMatch(/code 3/);
    expect((await failure('silent')).message).toMatch(/timed out/);
    expect((await failure('late')).message).toMatch(/late/);
    for (const b of ['missing', 'crashes', 'silent', 'late']) {
      expect(['Failed', 'Initializing']).toContain(record(b).phase);
      expect(h.gateway.events.list().some((e) => e.backend === b && e.stage === 'connected')).toBe(false);
    }
    const names = await toolNames(client);
    expect(names).toContain('good_echo');
    expect(names.filter((n) => /^(missing|crashes|silent|late)_/.test(n))).toEqual([]);
    const err = await client.callTool({ name: 'late_echo', arguments: { text: 'x' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).message).toContain('late_echo');
    // The process that never answered was ended, not left behind.
    const silentPid = await readPid(silentPidFile);
    await waitFor(() => !isAlive(silentPid), `silent backend process ${silentPid} to end`);
  });

  it('a backend that comes up later is connected and announced to clients', async () => {
    const kinds = ['tools', 'resources', 'prompts'].map((k) => `notifications/${k}/list_changed`);
    const before = Object.fromEntries(kinds.map((k) => [k, notes.count(k)]));
    late = await startHttpFixture({ transport: 'streamable-http', name: 'late', port: latePort });
    await waitFor(() => record('late').phase === 'Ready', 'late backend to connect');
    for (const k of kinds) await notes.waitFor(k, () => notes.count(k) > before[k]);
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain('fixture://late/info');
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain('late_greet');
    expect(await toolNames(client)).toContain('late_echo');
    const r = await client.callTool({ name: 'late_echo', arguments: { text: 'better late' } });
    expect(r.structuredContent).toEqual({ text: 'better late' });
  });

  it('every forwarded request has a timeout, and a timed-out call is cancelled at the backend', async () => {
    const err = await client.callTool({ name: 'tight_slow', arguments: { steps: 1, delay_ms: 20_000 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(ErrorCode.RequestTimeout);
    expect((err as McpError).message).toMatch(/tight.*500 ms/);
    await waitFor(async () => {
      const r = await client.callTool({ name: 'tight_last_cancelled', arguments: {} });
      return JSON.parse((r.content as Array<{ text: string }>)[0].text).cancelled === true;
    }, 'the backend to see the cancellation');
  });

  it('a stdio backend that dies mid-call: the call fails at once, clients are told, it comes back', async () => {
    const pid = JSON.parse(((await client.callTool({ name: 'good_whoami', arguments: {} })).content as Array<{ text: string }>)[0].text).pid as number;
    const before = notes.count('notifications/tools/list_changed');
    const call = slowCallInFlight(client, 'good_slow');
    await call.started;
    process.kill(pid, 'SIGKILL');
    const outcome = await call.result;
    expect(outcome).toBeInstanceOf(McpError);
    expect((outcome as McpError).message).toMatch(/good/);
    await notes.waitFor('notifications/tools/list_changed', () => notes.count('notifications/tools/list_changed') > before);
    await waitFor(() => record('good').phase !== 'Ready' || record('good').conditions.some((c) => c.reason === 'ConnectionLost'), 'good to be marked lost');
    // It is retried and returns.
    await waitFor(() => record('good').phase === 'Ready', 'good to reconnect');
    await waitFor(async () => (await toolNames(client)).includes('good_echo'), 'good tools to return');
  });

  it('a streamable-http backend that goes away mid-call: the call fails at once and clients are told', async () => {
    const before = notes.count('notifications/tools/list_changed');
    const call = slowCallInFlight(client, 'api_slow');
    await call.started;
    await http.stop();
    const outcome = await call.result;
    expect(outcome).toBeInstanceOf(McpError);
    await notes.waitFor('notifications/tools/list_changed', () => notes.count('notifications/tools/list_changed') > before);
    await waitFor(async () => !(await toolNames(client)).some((n) => n.startsWith('api_')), 'api tools to leave the list');
    expect(record('api').phase).toBe('Failed');
    const err = await client.callTool({ name: 'api_echo', arguments: { text: 'x' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
  });

  it('an SSE backend that goes away mid-call: the call fails at once and clients are told', async () => {
    const before = notes.count('notifications/tools/list_changed');
    const call = slowCallInFlight(client, 'web_slow');
    await call.started;
    await sse.stop();
    const outcome = await call.result;
    expect(outcome).toBeInstanceOf(McpError);
    await notes.waitFor('notifications/tools/list_changed', () => notes.count('notifications/tools/list_changed') > before);
    await waitFor(async () => !(await toolNames(client)).some((n) => n.startsWith('web_')), 'web tools to leave the list');
    expect(record('web').phase).toBe('Failed');
  });
});

describe('core: stdio backends run in their own process group', () => {
  it('ends every process of the group when the backend closes, and when its leader dies', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-pgroup-'));
    const files = {
      closeLeader: join(dir, 'g1.pid'),
      closeChild: join(dir, 'g1-child.pid'),
      crashLeader: join(dir, 'g2.pid'),
      crashChild: join(dir, 'g2-child.pid'),
    };
    const f = fixtureCommand([]);
    // The shell starts a grandchild (`sleep`), then becomes the fixture server with exec.
    const launch = (leaderFile: string, childFile: string, name: string) =>
      shellStdio(`sleep 300 & echo $! > '${childFile}'; exec '${f.command}' ${f.args.map((a) => `'${a}'`).join(' ')} --name ${name}`, leaderFile);
    const h = await startGateway({
      controller: { backoff_initial_ms: 60_000, backoff_max_ms: 60_000 },
      backends: { g1: launch(files.closeLeader, files.closeChild, 'g1'), g2: launch(files.crashLeader, files.crashChild, 'g2') },
    });
    try {
      const [l1, c1, l2, c2] = await Promise.all([
        readPid(files.closeLeader),
        readPid(files.closeChild),
        readPid(files.crashLeader),
        readPid(files.crashChild),
      ]);
      expect(h.gateway.controller.backendRecords().map((r) => r.phase)).toEqual(['Ready', 'Ready']);
      expect([l1, c1, l2, c2].map(isAlive)).toEqual([true, true, true, true]);
      // The leader crashes: its orphaned grandchild must not outlive it.
      process.kill(l2, 'SIGKILL');
      await waitFor(() => !isAlive(c2), `grandchild ${c2} of the crashed leader to end`);
      expect(isAlive(c1)).toBe(true);
      // Closing the gateway closes g1: the whole group goes.
      await h.close();
      await waitFor(() => !isAlive(l1) && !isAlive(c1), `group of g1 (${l1}, ${c1}) to end`);
    } finally {
      await h.close();
    }
  });
});
