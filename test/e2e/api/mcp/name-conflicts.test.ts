/**
 * The same server twice, under each conflict strategy. The backend first in
 * config order (`zeta`) is made to start slower than the second (`alpha`), so
 * arrival order is the opposite of config order: results must follow config
 * order. Renames apply before the strategy.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { fixtureCommand } from '../../../fixtures/spawn.js';
import { collectNotifications } from '../../../helpers/notifications.js';
import { waitFor } from '../../../helpers/wait.js';

/** The route map as the management API serves it. */
async function routeMapOf(h: Harness): Promise<Record<string, string[]>> {
  return ((await (await fetch(`${h.url}/manage/v1/capabilities`)).json()) as { route_map: Record<string, string[]> }).route_map;
}

/** A stdio fixture launch that takes a while before the server starts (so it connects last). */
function slowStdio(args: string[], delaySeconds = 1) {
  const f = fixtureCommand(args);
  return { type: 'stdio', command: '/bin/sh', args: ['-c', `sleep ${delaySeconds}; exec "$0" "$@"`, f.command, ...f.args] };
}

function stdio(args: string[]) {
  const f = fixtureCommand(args);
  return { type: 'stdio', command: f.command, args: f.args };
}

const text = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0].text;
const whoami = async (c: Client, name: string) => JSON.parse(text(await c.callTool({ name, arguments: {} }))) as { name: string; pid: number };

/** Arrival order really was the opposite of config order (else the test proves nothing). */
function expectArrivedFirst(h: Harness, first: string, second: string): void {
  const events = h.gateway.events.list();
  const at = (b: string) => events.findIndex((e) => e.stage === 'connected' && e.backend === b);
  expect(at(first)).toBeGreaterThanOrEqual(0);
  expect(at(second)).toBeGreaterThan(at(first));
}

const pidOf = (h: Harness, backend: string) => h.gateway.controller.connection(backend)?.pid;

describe('core: conflicts under strategy prefix', () => {
  let h: Harness;
  let client: Client;
  beforeAll(async () => {
    h = await startGateway({
      conflict_resolution: { strategy: 'prefix', separator: '__' },
      backends: {
        zeta: slowStdio(['--name', 'dup', '--tools', 'read_file,shared']),
        alpha: {
          ...stdio(['--name', 'dup', '--tools', 'read_file,shared']),
          rename: { tools: { read_file: { name: 'fs_read' } }, prompts: { greet: { name: 'hello' } } },
        },
      },
    });
    client = await h.connect();
  });
  afterAll(() => h?.close());

  it('exposes both copies under <backend><separator><name>; renames apply first', async () => {
    expectArrivedFirst(h, 'alpha', 'zeta');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['zeta__whoami', 'alpha__whoami', 'zeta__read_file', 'alpha__fs_read', 'zeta__shared', 'alpha__shared']));
    expect(names).not.toContain('alpha__read_file');
    expect(names.every((n) => n.startsWith('zeta__') || n.startsWith('alpha__'))).toBe(true);
    expect(await whoami(client, 'zeta__whoami')).toEqual({ name: 'dup', pid: pidOf(h, 'zeta') });
    expect(await whoami(client, 'alpha__whoami')).toEqual({ name: 'dup', pid: pidOf(h, 'alpha') });
    expect(text(await client.callTool({ name: 'alpha__fs_read', arguments: {} }))).toBe('dup:read_file');
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['alpha__hello', 'zeta__greet']);
    for (const r of h.gateway.controller.backendRecords()) expect(r.phase).toBe('Ready');
  });

  it('resource URIs are never rewritten: a duplicate URI goes to the backend first in config order', async () => {
    const { resources } = await client.listResources();
    expect(resources.filter((r) => r.uri === 'fixture://dup/info')).toHaveLength(1);
    expect((await routeMapOf(h))['fixture://dup/info']).toEqual(['zeta', 'fixture://dup/info']);
    expect(h.gateway.serving.routes.conflicts).toContainEqual({ kind: 'resource', name: 'fixture://dup/info', winner: 'zeta', loser: 'alpha' });
    expect(h.gateway.serving.routes.conflicts.filter((c) => c.kind !== 'resource')).toEqual([]);
    // The shared URI template is listed once, and reads through it go to zeta.
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['fixture://dup/items/{id}']);
    expect((await routeMapOf(h))['fixture://dup/items/{id}']).toEqual(['zeta', 'fixture://dup/items/{id}']);
    expect((await client.readResource({ uri: 'fixture://dup/items/77' })).contents[0]).toMatchObject({ text: 'item 77 from dup' });
  });
});

describe('core: conflicts under strategy first-wins', () => {
  let h: Harness;
  let client: Client;
  beforeAll(async () => {
    h = await startGateway({
      conflict_resolution: { strategy: 'first-wins' },
      backends: {
        zeta: slowStdio(['--name', 'dup', '--tools', 'shared,zonly']),
        // A rename can avoid a conflict (whoami) or create one (aonly -> zonly).
        alpha: { ...stdio(['--name', 'dup', '--tools', 'shared,aonly,amine']), rename: { tools: { whoami: { name: 'who_alpha' }, aonly: { name: 'zonly' } } } },
      },
    });
    client = await h.connect();
  });
  afterAll(() => h?.close());

  it('keeps the first backend in config order for every duplicate, whatever connected first', async () => {
    expectArrivedFirst(h, 'alpha', 'zeta');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['whoami', 'who_alpha', 'shared', 'zonly', 'amine', 'echo']));
    expect(names).not.toContain('aonly');
    expect(await whoami(client, 'whoami')).toEqual({ name: 'dup', pid: pidOf(h, 'zeta') });
    expect(await whoami(client, 'who_alpha')).toEqual({ name: 'dup', pid: pidOf(h, 'alpha') });
    const map = await routeMapOf(h);
    expect(map.shared).toEqual(['zeta', 'shared']);
    expect(map.zonly).toEqual(['zeta', 'zonly']);
    expect(map.echo).toEqual(['zeta', 'echo']);
    expect(map.greet).toEqual(['zeta', 'greet']);
    expect(map.amine).toEqual(['alpha', 'amine']);
    expect(map['fixture://dup/info']).toEqual(['zeta', 'fixture://dup/info']);
    const conflicts = h.gateway.serving.routes.conflicts;
    expect(conflicts).toContainEqual({ kind: 'tool', name: 'zonly', winner: 'zeta', loser: 'alpha' });
    expect(conflicts).toContainEqual({ kind: 'prompt', name: 'greet', winner: 'zeta', loser: 'alpha' });
    expect(conflicts.every((c) => c.winner === 'zeta' && c.loser === 'alpha')).toBe(true);
    for (const r of h.gateway.controller.backendRecords()) expect(r.phase).toBe('Ready');
  });
});

describe('core: conflicts under strategy error', () => {
  let h: Harness;
  let client: Client;
  beforeAll(async () => {
    h = await startGateway({
      conflict_resolution: { strategy: 'error' },
      controller: { backoff_initial_ms: 100, backoff_max_ms: 400, backoff_jitter: 0 },
      backends: {
        zeta: slowStdio(['--name', 'dup', '--tools', 'shared,zonly']),
        alpha: stdio(['--name', 'dup', '--tools', 'shared,aonly']),
        // Same fixture, but filters and renames leave it nothing in common with the others.
        gamma: {
          ...stdio(['--name', 'gamma']),
          filters: { tools: { allow: ['whoami'] }, prompts: { deny: ['*'] } },
          rename: { tools: { whoami: { name: 'gamma_who' } } },
        },
      },
    });
    client = await h.connect();
  });
  afterAll(() => h?.close());

  const record = (name: string) => h.gateway.controller.backendRecords().find((r) => r.name === name)!;

  it('leaves the later backend in config order out entirely, Failed with reason NameConflict', async () => {
    expectArrivedFirst(h, 'alpha', 'zeta');
    const alpha = record('alpha');
    expect(alpha.phase).toBe('Failed');
    expect(alpha.conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: false, reason: 'NameConflict' });
    expect(alpha.error).toMatch(/conflict/);
    expect(alpha.error).toContain('zeta');
    expect(record('zeta').phase).toBe('Ready');
    expect(record('gamma').phase).toBe('Ready');

    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toContain('zonly');
    expect(names).toContain('gamma_who');
    expect(names).not.toContain('aonly');
    expect(new Set(names).size).toBe(names.length);
    expect(await whoami(client, 'whoami')).toEqual({ name: 'dup', pid: pidOf(h, 'zeta') });
    expect((await whoami(client, 'gamma_who')).name).toBe('gamma');
    const err = await client.callTool({ name: 'aonly', arguments: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).message).toContain('aonly');
    expect(Object.values(await routeMapOf(h)).some(([b]) => b === 'alpha')).toBe(false);
  });

  it('admits the held-back backend when the winner goes away, and rejects it again when the winner returns', async () => {
    const notes = collectNotifications(client);
    const oldZeta = pidOf(h, 'zeta')!;
    process.kill(oldZeta, 'SIGKILL');

    await notes.waitFor('notifications/tools/list_changed');
    await waitFor(() => record('alpha').phase === 'Ready', 'alpha to be admitted');
    const during = (await client.listTools()).tools.map((t) => t.name);
    expect(during).toContain('aonly');
    expect(during).not.toContain('zonly');
    expect(await whoami(client, 'whoami')).toEqual({ name: 'dup', pid: pidOf(h, 'alpha') });

    // zeta reconnects (arriving last) and wins again: config order, not arrival order.
    await waitFor(() => record('zeta').phase === 'Ready' && pidOf(h, 'zeta') !== oldZeta, 'zeta to reconnect');
    await waitFor(() => record('alpha').phase === 'Failed', 'alpha to be rejected again');
    expect(record('alpha').conditions.find((c) => c.type === 'Ready')?.reason).toBe('NameConflict');
    const after = (await client.listTools()).tools.map((t) => t.name);
    expect(after).toContain('zonly');
    expect(after).not.toContain('aonly');
    expect(await whoami(client, 'whoami')).toEqual({ name: 'dup', pid: pidOf(h, 'zeta') });
  });
});

describe('core: conflicts under strategy priority', () => {
  let h: Harness;
  let client: Client;
  beforeAll(async () => {
    h = await startGateway({
      // Config order zeta, alpha, gamma; priority gamma, alpha, then the rest (zeta). gamma connects last.
      conflict_resolution: { strategy: 'priority', order: ['gamma', 'alpha'] },
      controller: { backoff_initial_ms: 100, backoff_max_ms: 400, backoff_jitter: 0 },
      backends: {
        zeta: stdio(['--name', 'dup', '--tools', 'shared,zonly']),
        alpha: stdio(['--name', 'dup', '--tools', 'shared,aonly']),
        gamma: slowStdio(['--name', 'gam', '--tools', 'aonly']),
      },
    });
    client = await h.connect();
  });
  afterAll(() => h?.close());

  const record = (name: string) => h.gateway.controller.backendRecords().find((r) => r.name === name)!;
  interface ToolInfo {
    name: string;
    backend: string;
    filtered: boolean;
    hidden_by?: string;
  }
  const capabilityTools = async () => ((await (await fetch(`${h.url}/manage/v1/capabilities?type=tools`)).json()) as { tools: ToolInfo[] }).tools;
  const hiddenBy = (tools: ToolInfo[], backend: string, name: string) => tools.find((t) => t.backend === backend && t.name === name)?.hidden_by;

  it('the first backend in order wins each name, unlisted ones follow in config order; names are never prefixed', async () => {
    expectArrivedFirst(h, 'alpha', 'gamma');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['whoami', 'echo', 'shared', 'zonly', 'aonly']));
    expect(names.some((n) => /^(zeta|alpha|gamma)_/.test(n))).toBe(false);

    expect(await whoami(client, 'whoami')).toEqual({ name: 'gam', pid: pidOf(h, 'gamma') });
    expect(text(await client.callTool({ name: 'aonly', arguments: {} }))).toBe('gam:aonly');
    const map = await routeMapOf(h);
    expect(map.shared).toEqual(['alpha', 'shared']); // listed alpha beats zeta, first in config
    expect(map.zonly).toEqual(['zeta', 'zonly']);
    expect(map['fixture://dup/info']).toEqual(['alpha', 'fixture://dup/info']);
    const greeting = await client.getPrompt({ name: 'greet', arguments: { name: 'x' } });
    expect(greeting.messages[0].content).toMatchObject({ text: 'Hello x from gam' });
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet']);
    for (const r of h.gateway.controller.backendRecords()) expect(r.phase).toBe('Ready');
  });

  it('the losers are hidden, not renamed: GET /capabilities names the winner, and a warning event per loser says it', async () => {
    const tools = await capabilityTools();
    expect(hiddenBy(tools, 'zeta', 'shared')).toBe('alpha');
    expect(hiddenBy(tools, 'zeta', 'whoami')).toBe('gamma');
    expect(hiddenBy(tools, 'alpha', 'aonly')).toBe('gamma');
    expect(hiddenBy(tools, 'alpha', 'whoami')).toBe('gamma');
    for (const served of [
      ['gamma', 'whoami'],
      ['gamma', 'aonly'],
      ['alpha', 'shared'],
      ['zeta', 'zonly'],
    ]) {
      const entry = tools.find((t) => t.backend === served[0] && t.name === served[1]);
      expect(entry, served.join(' ')).toMatchObject({ filtered: false });
      expect(entry).not.toHaveProperty('hidden_by');
    }

    // The latest report: gamma connected last, so zeta's first report was made before gamma took its names.
    const zeta = h.gateway.events
      .list()
      .filter((e) => e.stage === 'conflict' && e.backend === 'zeta')
      .at(-1)!;
    expect(zeta.severity).toBe('warning');
    expect(zeta.message).toMatch(/^zeta: \d+ hidden from clients by conflict strategy priority: /);
    expect(zeta.message).toMatch(/'gamma' keeps \d+ \(tool "echo"/);
    expect(zeta.message).toMatch(/'alpha' keeps \d+ \(tool "shared", resource "fixture:\/\/dup\/info"/);
    expect(zeta.details.hidden).toContainEqual({ kind: 'tool', name: 'shared', winner: 'alpha' });
    expect(zeta.details.hidden).toContainEqual({ kind: 'prompt', name: 'greet', winner: 'gamma' });
    const alpha = await h.waitForEvent((e) => e.stage === 'conflict' && e.backend === 'alpha' && JSON.stringify(e.details).includes('aonly'));
    expect(alpha.details.hidden).toContainEqual({ kind: 'tool', name: 'aonly', winner: 'gamma' });
    expect(h.gateway.events.list().some((e) => e.stage === 'conflict' && e.backend === 'gamma')).toBe(false);
  });

  it('when the winner goes away the next in order serves the name; when it returns it wins again', async () => {
    const notes = collectNotifications(client);
    const oldGamma = pidOf(h, 'gamma')!;
    process.kill(oldGamma, 'SIGKILL');
    await notes.waitFor('notifications/tools/list_changed');
    await waitFor(async () => (await routeMapOf(h)).aonly?.[0] === 'alpha', 'alpha to serve aonly');
    expect(await whoami(client, 'whoami')).toEqual({ name: 'dup', pid: pidOf(h, 'alpha') });
    expect(text(await client.callTool({ name: 'aonly', arguments: {} }))).toBe('dup:aonly');

    await waitFor(() => record('gamma').phase === 'Ready' && pidOf(h, 'gamma') !== oldGamma, 'gamma to reconnect');
    await waitFor(async () => (await routeMapOf(h)).aonly?.[0] === 'gamma', 'gamma to win aonly again');
    expect(await whoami(client, 'whoami')).toEqual({ name: 'gam', pid: pidOf(h, 'gamma') });
    expect(hiddenBy(await capabilityTools(), 'alpha', 'aonly')).toBe('gamma');
  });
});
