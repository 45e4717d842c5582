/**
 * The routing layer on its own, without processes or HTTP: the route table
 * (filters, renames, the four conflict strategies, invalid tool names, templates, names of
 * backends that are down, the gateway's own exact names), the router (one
 * path for every operation through the interceptors, completion included,
 * "not ready" distinct from "unknown", a name waiting for backends in their
 * first connect) and the session store (TTL, limits,
 * in-flight requests keep a session alive).
 */
import { describe, expect, it, vi } from 'vitest';
import type { Server, Transport } from '@modelcontextprotocol/server';
import { buildRouteTable, type BackendInput } from '../../../../runtime/routing/route-table.js';
import { Router } from '../../../../runtime/routing/router.js';
import { InFlightCalls } from '../../../../runtime/routing/in-flight-calls.js';
import type { Interceptor, OperationContext } from '../../../../runtime/routing/operation.js';
import type { ServingTarget } from '../../../../runtime/backends/serving-backends.js';
import type { RouteSource } from '../../../../runtime/routing/router.js';
import { emptyCatalog, setCatalogList, shorterListTtl, type BackendCatalog } from '../../../../runtime/backends/backend-catalog.js';
import type { BackendSpec } from '../../../../schemas/config.js';
import { MemorySessionTable } from '../../../../api/mcp/memory-session-table.js';
import { ClientSession } from '../../../../api/mcp/client-session.js';
import { silentLogger } from '../../../../runtime/observability/logging/logger.js';
import type { JsonObject } from '../../../../runtime/routing/caller.js';
import { INCOMPLETE_LIST_META, listAfterFirstConnects, type FirstConnects } from '../../../../runtime/routing/first-connects.js';
import { BackendsStartingError, ToolNotFoundError } from '../../../../schemas/errors.js';

const spec = (extra: Partial<BackendSpec> = {}): BackendSpec => ({ type: 'stdio', command: 'x', ...extra }) as BackendSpec;

function catalog(tools: string[], extra: Partial<BackendCatalog> = {}): BackendCatalog {
  return { ...emptyCatalog(), tools: tools.map((name) => ({ name, inputSchema: { type: 'object' as const } })), ...extra };
}

const input = (name: string, tools: string[], s: Partial<BackendSpec> = {}, extra: Partial<BackendCatalog> = {}): BackendInput => ({
  name,
  spec: spec(s),
  catalog: catalog(tools, extra),
});

describe('route table', () => {
  it('prefix: every name becomes <backend><sep><name>; routes lead back to the original', () => {
    const t = buildRouteTable([input('a', ['echo']), input('b', ['echo'])], { strategy: 'prefix', separator: '__' });
    expect(t.lists.tools.map((x) => x.name)).toEqual(['a__echo', 'b__echo']);
    expect(t.tools.get('b__echo')).toMatchObject({ backend: 'b', original: 'echo' });
    expect(t.conflicts).toEqual([]);
  });

  it('first-wins keeps the earlier backend’s name and records the conflict; error leaves the later backend out entirely', () => {
    const first = buildRouteTable([input('a', ['echo', 'x']), input('b', ['echo', 'y'])], { strategy: 'first-wins', separator: '_' });
    expect(first.tools.get('echo')!.backend).toBe('a');
    expect(first.tools.get('y')!.backend).toBe('b');
    expect(first.conflicts).toEqual([{ kind: 'tool', name: 'echo', winner: 'a', loser: 'b' }]);
    const strict = buildRouteTable([input('a', ['echo']), input('b', ['echo', 'y'])], { strategy: 'error', separator: '_' });
    expect(strict.tools.has('y')).toBe(false);
    expect(strict.rejected.get('b')).toMatch(/tool 'echo' is also exposed by 'a'/);
  });

  it('filters hide (deny wins) but keep the entry for operators; renames apply before the prefix', () => {
    const t = buildRouteTable(
      [
        input('a', ['read_file', 'delete_file', 'list'], {
          filters: { tools: { allow: ['*_file'], deny: ['delete_*'] } },
          rename: { tools: { read_file: { name: 'fs_read', description: 'Read' } } },
        }),
      ],
      { strategy: 'prefix', separator: '_' },
    );
    expect(t.lists.tools.map((x) => x.name)).toEqual(['a_fs_read']);
    expect(t.tools.get('a_fs_read')).toMatchObject({ original: 'read_file', renamed: true });
    expect(t.all.tools.map((e) => [e.tool.name, e.filtered])).toEqual([
      ['a_fs_read', false],
      ['a_delete_file', true],
      ['a_list', true],
    ]);
  });

  it('a tool named like an Object.prototype member is just a name, renames included', () => {
    const t = buildRouteTable([input('a', ['constructor', 'toString'], { rename: { tools: { other: { name: 'x' } } } })], {
      strategy: 'first-wins',
      separator: '_',
    });
    expect(t.lists.tools.map((x) => x.name)).toEqual(['constructor', 'toString']);
    expect(t.tools.get('constructor')).toMatchObject({ original: 'constructor', renamed: false });
  });

  it('resource templates route by URI match; URIs are never rewritten', () => {
    const t = buildRouteTable(
      [input('a', [], {}, { resourceTemplates: [{ uriTemplate: 'notes://{id}', name: 'note' }], resources: [{ uri: 'file:///x', name: 'x' }] })],
      { strategy: 'prefix', separator: '_' },
    );
    expect(t.resources.get('file:///x')).toMatchObject({ backend: 'a', original: 'file:///x' });
    expect(t.templates[0]!.matcher.match('notes://42')).toEqual({ id: '42' });
  });

  it('names of a backend that is not serving become "unavailable" (unless a serving backend holds them)', () => {
    const t = buildRouteTable([input('a', ['echo'])], { strategy: 'first-wins', separator: '_' }, [input('down', ['echo', 'only_down'])]);
    expect(t.unavailable.get('only_down')).toEqual({ backend: 'down', original: 'only_down' });
    expect(t.unavailable.has('echo')).toBe(false);
    expect(t.lists.tools.map((x) => x.name)).toEqual(['echo']);
  });

  it('the gateway’s own exact names are never prefixed and lose a clash instead of rejecting a backend', () => {
    const t = buildRouteTable([input('a', ['wf']), { ...input('skill:s', ['s_wf', 'a_wf']), exact: true }], { strategy: 'prefix', separator: '_' });
    expect(t.tools.get('s_wf')!.backend).toBe('skill:s');
    expect(t.tools.get('a_wf')!.backend).toBe('a');
    const strict = buildRouteTable([input('a', ['wf']), { ...input('skill:s', ['wf']), exact: true }], { strategy: 'error', separator: '_' });
    expect(strict.rejected.size).toBe(0);
    expect(strict.tools.get('wf')!.backend).toBe('a');
  });

  it('priority: backends in `order` claim names first, the rest follow in config order, the gateway’s own names stay last', () => {
    const t = buildRouteTable([input('a', ['x', 'y', 'z']), input('b', ['x', 'y']), input('c', ['x', 'w']), { ...input('skill:s', ['w', 'v']), exact: true }], {
      strategy: 'priority',
      separator: '_',
      order: ['c', 'b'],
    });
    expect(t.tools.get('x')!.backend).toBe('c');
    expect(t.tools.get('y')!.backend).toBe('b');
    expect(t.tools.get('z')!.backend).toBe('a');
    expect(t.tools.get('w')!.backend).toBe('c');
    expect(t.tools.get('v')!.backend).toBe('skill:s');
    // Hidden, not renamed: the losers keep their names and say who won.
    const hidden = t.all.tools.filter((e) => e.hiddenBy !== undefined).map((e) => `${e.backend}:${e.tool.name}<${e.hiddenBy}`);
    expect(hidden.sort()).toEqual(['a:x<c', 'a:y<b', 'b:x<c', 'skill:s:w<c']);
    expect(t.rejected.size).toBe(0);
    // Without an order it is first-wins.
    expect(buildRouteTable([input('a', ['x']), input('b', ['x'])], { strategy: 'priority', separator: '_' }).tools.get('x')!.backend).toBe('a');
  });

  it('a tool whose exposed name breaks the MCP rules is left out, says why, and never clashes', () => {
    const t = buildRouteTable([input('a', ['bad name', 'ok']), input('b', ['bad name'], { rename: { tools: { 'bad name': { name: 'good' } } } })], {
      strategy: 'first-wins',
      separator: '_',
    });
    expect(t.lists.tools.map((x) => x.name)).toEqual(['ok', 'good']);
    expect(t.all.tools.find((e) => e.original === 'bad name' && e.backend === 'a')!.nameError).toMatch(/a space/);
    expect(t.conflicts).toEqual([]);
    const long = buildRouteTable([input('abc', ['n'.repeat(125)])], { strategy: 'prefix', separator: '_' });
    expect(long.tools.size).toBe(0);
    expect(long.all.tools[0].nameError).toMatch(/129 characters/);
  });

  it('each list keeps the shortest ttlMs its serving backends gave; a backend left out or not serving gives none', () => {
    const said = (listTtlMs: BackendCatalog['listTtlMs']) => ({ listTtlMs });
    const t = buildRouteTable(
      [input('a', ['x'], {}, said({ tools: 1500, prompts: 60_000 })), input('b', ['y'], {}, said({ tools: 900 })), input('c', ['z'])],
      { strategy: 'error', separator: '_' },
      [input('resting', ['r'], {}, said({ tools: 1, prompts: 1 }))],
    );
    expect(t.listTtlMs).toEqual({ tools: 900, prompts: 60_000 });
    const strict = buildRouteTable([input('a', ['x'], {}, said({ tools: 1500 })), input('b', ['x'], {}, said({ tools: 5 }))], {
      strategy: 'error',
      separator: '_',
    });
    expect(strict.rejected.has('b')).toBe(true);
    expect(strict.listTtlMs).toEqual({ tools: 1500 });
  });

  it("a loaded list's ttlMs is the shortest valid one of its pages; a new load replaces what the last one said", () => {
    expect(
      [{ ttlMs: 500 }, {}, { ttlMs: 200 }, { ttlMs: -1 }, { ttlMs: 'x' }].reduce<number | undefined>((ttl, page) => shorterListTtl(ttl, page), undefined),
    ).toBe(200);
    expect(shorterListTtl(undefined, { tools: [] })).toBeUndefined();
    const cat = emptyCatalog();
    setCatalogList(cat, 'tools', [], 300);
    setCatalogList(cat, 'prompts', [], 400);
    setCatalogList(cat, 'tools', []);
    expect(cat.listTtlMs).toEqual({ prompts: 400 });
  });
});

/** A serving set of canned targets over a fixed route table. */
function fakeServing(inputs: BackendInput[], resting: BackendInput[] = []) {
  const calls: Array<{ backend: string; method: string; params: JsonObject | undefined }> = [];
  const targets = new Map<string, ServingTarget>(
    inputs.map((i) => [
      i.name,
      {
        requestTimeoutMs: 1000,
        request: async (method: string, params: JsonObject | undefined) => {
          calls.push({ backend: i.name, method, params });
          return { ok: i.name };
        },
        subscribeResource: async (uri: string) => void calls.push({ backend: i.name, method: 'subscribeResource', params: { uri } }),
        unsubscribeResource: async (uri: string) => void calls.push({ backend: i.name, method: 'unsubscribeResource', params: { uri } }),
      },
    ]),
  );
  const serving = { routes: buildRouteTable(inputs, { strategy: 'prefix', separator: '_' }, resting), target: (name: string) => targets.get(name) };
  return { serving: serving satisfies RouteSource, calls };
}

describe('router', () => {
  const caller = { sessionId: 's1', transport: 'streamable-http' as const, requestId: 7 };

  it('bad params are refused before any backend sees them, each naming its field (issue 36, defect 1)', async () => {
    const { serving, calls } = fakeServing([input('a', ['echo'], {}, { prompts: [{ name: 'greet' }] })]);
    const router = new Router(serving, new InFlightCalls());
    await expect(router.getPrompt(caller, { name: 'a_greet', arguments: { arg1: 5 } })).rejects.toMatchObject({
      code: 'bad_request',
      message: 'Invalid params: prompt argument `arg1` must be a string',
    });
    await expect(router.complete(caller, { ref: { type: 'ref/prompt', name: 'a_greet' } })).rejects.toMatchObject({
      code: 'bad_request',
      message: 'Invalid params: completion/complete needs `argument` with a string `name` and `value`',
    });
    expect(calls).toEqual([]);
  });

  it('every operation takes the same path: interceptors see method, capability, owner and original name', async () => {
    const { serving, calls } = fakeServing([input('a', ['echo'], {}, { prompts: [{ name: 'greet' }], resources: [{ uri: 'r://1', name: 'one' }] })]);
    const router = new Router(serving, new InFlightCalls());
    const seen: OperationContext[] = [];
    const record: Interceptor = async (ctx, next) => {
      const r = await next();
      seen.push({ ...ctx });
      return r;
    };
    router.setInterceptors([record]);
    await router.callTool(caller, { name: 'a_echo', arguments: { x: 1 } });
    await router.getPrompt(caller, { name: 'a_greet' });
    await router.readResource(caller, { uri: 'r://1' });
    await router.complete(caller, { ref: { type: 'ref/prompt', name: 'a_greet' }, argument: { name: 'n', value: 'v' } });
    expect(seen.map((c) => [c.method, c.capability, c.backend, c.originalName])).toEqual([
      ['call_tool', 'a_echo', 'a', 'echo'],
      ['get_prompt', 'a_greet', 'a', 'greet'],
      ['read_resource', 'r://1', 'a', 'r://1'],
      ['complete', 'a_greet', 'a', 'greet'],
    ]);
    expect(
      calls.map((c) => [
        c.method,
        (c.params as { name?: string; ref?: { name: string } }).name ??
          (c.params as { ref?: { name: string } }).ref?.name ??
          (c.params as { uri?: string }).uri,
      ]),
    ).toEqual([
      ['tools/call', 'echo'],
      ['prompts/get', 'greet'],
      ['resources/read', 'r://1'],
      ['completion/complete', 'greet'],
    ]);
  });

  it('an unknown name fails through the interceptors too; a known name of a backend that is down says which and what it is doing', async () => {
    const { serving } = fakeServing([input('a', ['echo'])], [input('mem', ['read'])]);
    const router = new Router(serving, new InFlightCalls(), (b) => (b === 'mem' ? 'Initializing' : undefined));
    const failures: Array<[string, string | undefined]> = [];
    router.setInterceptors([
      async (ctx, next) => {
        try {
          return await next();
        } catch (err) {
          failures.push([ctx.capability, ctx.backend]);
          throw err;
        }
      },
    ]);
    await expect(router.callTool(caller, { name: 'nope' })).rejects.toThrow(/Unknown tool: nope/);
    await expect(router.callTool(caller, { name: 'mem_read' })).rejects.toThrow(/backend "mem" is Initializing/);
    expect(failures).toEqual([
      ['nope', undefined],
      ['mem_read', 'mem'],
    ]);
  });

  it('a name none serves while a backend is in its first connect waits for it; past the wait it is retryable, after the first connects unknown', async () => {
    const before = fakeServing([input('a', ['echo'])]).serving;
    const after = fakeServing([input('a', ['echo']), input('b', ['slow'])]).serving;
    const source = { routes: before.routes, target: (name: string) => after.target(name) } satisfies RouteSource;
    let pending = 1;
    const wakers: Array<() => void> = [];
    const first: FirstConnects = { pending: () => pending, waitMs: () => 60_000, nextEnd: () => new Promise<void>((wake) => wakers.push(wake)) };
    const router = new Router(source, new InFlightCalls(), undefined, undefined, first);
    const call = router.callTool(caller, { name: 'b_slow' });
    await vi.waitFor(() => expect(wakers).toHaveLength(1));
    // b connects: its catalog is in the table, then its first connect is over.
    source.routes = after.routes;
    pending = 0;
    wakers.splice(0).forEach((wake) => wake());
    expect(await call).toEqual({ ok: 'b' });

    // Past the wait while b still connects: come back later, not "unknown".
    source.routes = before.routes;
    pending = 1;
    const hurried = new Router(source, new InFlightCalls(), undefined, undefined, { ...first, waitMs: () => 0 });
    const retry = await hurried.callTool(caller, { name: 'b_slow' }).catch((e: unknown) => e);
    expect(retry).toBeInstanceOf(BackendsStartingError);
    expect((retry as BackendsStartingError).details).toEqual({ capability: 'b_slow', backends_connecting: 1, retry_after_s: 2 });
    // A served name never waits; once every first connect is over, an unknown name is unknown at once.
    expect(await hurried.callTool(caller, { name: 'a_echo' })).toEqual({ ok: 'a' });
    pending = 0;
    await expect(hurried.callTool(caller, { name: 'b_slow' })).rejects.toBeInstanceOf(ToolNotFoundError);
  });

  it('a list waits for the first connects, and says so when it is served while some are still pending', async () => {
    let pending = 1;
    const first: FirstConnects = { pending: () => pending, waitMs: () => 0, nextEnd: async () => undefined };
    expect(await listAfterFirstConnects(first, 'tools/list', async () => ({ tools: [] }))).toEqual({
      tools: [],
      _meta: { [INCOMPLETE_LIST_META]: { backends_connecting: 1, retry_after_s: 2 } },
    });
    expect(await listAfterFirstConnects(first, 'tools/call', async () => ({ content: [] }))).toEqual({ content: [] });
    pending = 0;
    expect(await listAfterFirstConnects(first, 'tools/list', async () => ({ tools: [] }))).toEqual({ tools: [] });
  });

  it('the client’s progress token never reaches the backend', async () => {
    const { serving, calls } = fakeServing([input('a', ['echo'])]);
    const router = new Router(serving, new InFlightCalls());
    await router.callTool(caller, { name: 'a_echo', _meta: { progressToken: 'p1', other: 1 } });
    expect(calls[0]!.params).toEqual({ name: 'echo', _meta: { other: 1 } });
  });
});

describe('session table (in memory)', () => {
  const session = (id: string) => {
    const s = new ClientSession('streamable-http', '127.0.0.1', {} as Transport, () => ({
      server: { close: async () => undefined, getClientVersion: () => undefined, getNegotiatedProtocolVersion: () => undefined } as unknown as Server,
      serve: async () => ({}),
    }));
    s.id = id;
    return s;
  };

  it('refuses a session beyond the limit without touching the open ones; a new limit follows a reload', () => {
    const store = new MemorySessionTable({ ttlSeconds: 60, maxSessions: 2 }, 'r1', silentLogger());
    store.add(session('a'));
    store.add(session('b'));
    expect(() => store.admit()).toThrow(/at most 2/);
    expect(store.size).toBe(2);
    store.setLimits({ ttlSeconds: 60, maxSessions: 3 });
    expect(() => store.admit()).not.toThrow();
  });

  it('reaps sessions idle past the TTL, but never one with a request in flight', async () => {
    const store = new MemorySessionTable({ ttlSeconds: 1, maxSessions: 10 }, 'r1', silentLogger());
    const idle = session('idle');
    const busy = session('busy');
    store.add(idle);
    store.add(busy);
    idle.lastActivity = busy.lastActivity = Date.now() - 5000;
    const handling = busy.begin(1, new AbortController().signal);
    expect((await store.records()).map((r) => [r.id, r.expired, r.replica])).toEqual([
      ['idle', true, 'r1'],
      ['busy', false, 'r1'],
    ]);
    expect(await store.reapExpired()).toBe(1);
    expect(store.get('idle')).toBeUndefined();
    expect(store.get('busy')).toBe(busy);
    busy.end(1, new AbortController().signal); // another request's signal: not this one's end
    expect((await store.records())[0]!.expired).toBe(false);
    busy.end(1, handling);
    expect((await store.records())[0]!.expired).toBe(true);
  });

  it('abandoning a request aborts its signal with the reason', () => {
    const s = session('x');
    const signal = s.begin(5, new AbortController().signal);
    s.abandon([5], 'client closed the request stream');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('client closed the request stream');
  });
});
