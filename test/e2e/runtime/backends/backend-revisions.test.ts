/**
 * Backends of either MCP revision (issue 32): the gateway negotiates with v2
 * SDK servers (`@modelcontextprotocol/server`) over stdio and streamable HTTP,
 * dual-era and 2026-07-28 only, and serves them to a 2025-11-25 client (the
 * 1.x SDK Client the other tests use): lists, calls with progress, logs,
 * prompts and completions, resources, resource updates and list changes from
 * a modern-only backend; the revision shows in the backend record; `protocol`
 * pins it; the health check works without ping; x-mcp-header parameters reach
 * an HTTP backend as Mcp-Param-* headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { fixtureCommand, fixtureMainPath, startHttpFixture, type HttpFixture } from '../../../fixtures/spawn.js';
import { collectNotifications, type NotificationLog } from '../../../helpers/notifications.js';
import { waitFor } from '../../../helpers/wait.js';
import { counterUri, staticUri } from '../../../fixtures/v2-fixture-server.js';
import type { BackendRecord } from '../../../../schemas/records.js';

const v2Stdio = (name: string, args: string[] = []) => ({
  type: 'stdio',
  command: process.execPath,
  args: [fixtureMainPath('v2-fixture-server-main'), '--transport', 'stdio', '--name', name, ...args],
});
const v2Http = (url: string, extra: Record<string, unknown> = {}) => ({ type: 'streamable-http', url, ...extra });
const textOf = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0]!.text;

/**
 * A 2025 stdio server that misbehaves on `server/discover` before `initialize`:
 * `exit` ends the process (as servers on some SDKs do), `ignore` never answers.
 * The 1.x fixture behind a shell that reads the first line first.
 */
function awkwardLegacy(mode: 'exit' | 'ignore') {
  const fixture = fixtureCommand(['--name', mode]);
  const script = [
    'IFS= read -r first',
    `case "$first" in *'"server/discover"'*) ${mode === 'exit' ? 'exit 1' : "first=''"} ;; esac`,
    '{ [ -n "$first" ] && printf \'%s\\n\' "$first"; exec cat; } | exec "$0" "$@"',
  ].join('\n');
  return { type: 'stdio', command: '/bin/sh', args: ['-c', script, fixture.command, ...fixture.args] };
}

/** The backends, and the revision each connection must settle on. */
const EXPECTED: Record<string, string> = {
  dualhttp: '2026-07-28',
  modernhttp: '2026-07-28',
  dualstdio: '2026-07-28',
  modernstdio: '2026-07-28',
  pinned: '2025-11-25',
  legacy: '2025-11-25',
  exits: '2025-11-25',
  ignores: '2025-11-25',
};

describe('backends of either revision', () => {
  let h: Harness;
  let dual: HttpFixture;
  let modern: HttpFixture;
  let client: Client;
  let notes: NotificationLog;

  beforeAll(async () => {
    [dual, modern] = await Promise.all([
      startHttpFixture({ transport: 'streamable-http', main: fixtureMainPath('v2-fixture-server-main'), name: 'dualhttp' }),
      startHttpFixture({ transport: 'streamable-http', main: fixtureMainPath('v2-fixture-server-main'), name: 'modernhttp', args: ['--modern-only'] }),
    ]);
    const legacy = fixtureCommand(['--name', 'legacy']);
    h = await startGateway({
      health: { interval_s: 0.2, timeout_s: 5 },
      backends: {
        dualhttp: v2Http(dual.url),
        modernhttp: v2Http(modern.url),
        dualstdio: v2Stdio('dualstdio'),
        modernstdio: v2Stdio('modernstdio', ['--modern-only']),
        // The same dual-era server, pinned to the older revision.
        pinned: v2Http(dual.url, { protocol: '2025-11-25' }),
        // A 1.x SDK server: `auto` falls back to initialize.
        legacy: { type: 'stdio', command: legacy.command, args: legacy.args },
        // Started once more and initialized without asking; initialized after the stdio probe's few seconds.
        exits: awkwardLegacy('exit'),
        ignores: awkwardLegacy('ignore'),
      },
    });
    await waitFor(() => Object.keys(EXPECTED).every((b) => h.gateway.controller.backendRecord(b)?.phase === 'Ready'), 'every backend Ready', 60_000);
    client = await h.connect();
    notes = collectNotifications(client);
  }, 90_000);

  afterAll(async () => {
    await h?.close();
    await Promise.all([dual?.stop(), modern?.stop()]);
  });

  it('GET /manage/v1/backends shows the revision each connection speaks', async () => {
    const { backends } = (await (await fetch(`${h.url}/manage/v1/backends`)).json()) as { backends: BackendRecord[] };
    const revisions = Object.fromEntries(backends.map((b) => [b.name, b.protocol_version]));
    expect(revisions).toEqual(EXPECTED);
    // `exits` got there on its second start, `ignores` once its probe went unanswered.
    const said = (backend: string, text: string) => h.logs.some((l) => l.includes(`"backend":"${backend}"`) && l.includes(text));
    expect(said('exits', 'exited on the server/discover probe')).toBe(true);
    expect(said('ignores', 'exited on the server/discover probe')).toBe(false);
  });

  for (const backend of ['modernhttp', 'modernstdio']) {
    describe(`a 2026-07-28-only backend (${backend}) to a 2025-11-25 client`, () => {
      it('lists its tools, prompts and resources', async () => {
        const tools = (await client.listTools()).tools.map((t) => t.name);
        expect(tools).toEqual(expect.arrayContaining([`${backend}_echo`, `${backend}_progress`, `${backend}_log`, `${backend}_bump`]));
        expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain(`${backend}_greet`);
        const uris = (await client.listResources()).resources.map((r) => r.uri);
        expect(uris).toEqual(expect.arrayContaining([counterUri(backend), staticUri(backend)]));
      });

      it('calls a tool, with progress on the way', async () => {
        expect(textOf(await client.callTool({ name: `${backend}_echo`, arguments: { text: 'hi' } }))).toBe('hi');
        const progress: number[] = [];
        const result = await client.callTool({ name: `${backend}_progress`, arguments: { steps: 3 } }, undefined, {
          onprogress: (p) => progress.push(p.progress),
        });
        expect(textOf(result)).toBe('done after 3');
        expect(progress).toEqual([1, 2, 3]);
      });

      it('gets a prompt and completes its argument', async () => {
        const prompt = await client.getPrompt({ name: `${backend}_greet`, arguments: { name: 'Ada' } });
        expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Hello, Ada!' });
        const completion = await client.complete({ ref: { type: 'ref/prompt', name: `${backend}_greet` }, argument: { name: 'name', value: 'A' } });
        expect(completion.completion.values).toEqual(['Ada', 'Alan']);
      });
    });
  }

  it('a modern backend logs once a level is set (the level goes with each request)', async () => {
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'modernhttp_log', arguments: { message: 'from modern http' } });
    const log = await notes.waitFor('notifications/message', (n) => (n.params as { data?: unknown }).data === 'from modern http');
    expect(log.params).toMatchObject({ level: 'info', logger: 'v2-fixture' });
  });

  for (const backend of ['modernhttp', 'modernstdio']) {
    it(`reads a resource of ${backend}, and an update of a subscribed one reaches the client`, async () => {
      const uri = counterUri(backend);
      const read = async () => Number(((await client.readResource({ uri })).contents[0] as { text: string }).text);
      const before = await read();
      await client.subscribeResource({ uri });
      await client.callTool({ name: `${backend}_bump`, arguments: {} });
      const update = await notes.waitFor('notifications/resources/updated', (n) => (n.params as { uri?: string }).uri === uri);
      // The backend's listen-stream id is no business of the client's.
      expect(update.params).toEqual({ uri });
      expect(await read()).toBe(before + 1);
      await client.unsubscribeResource({ uri });
    });
  }

  for (const backend of ['modernhttp', 'modernstdio']) {
    it(`a tool added at ${backend} reaches the client as a list change`, async () => {
      const seen = notes.count('notifications/tools/list_changed');
      await client.callTool({ name: `${backend}_add_tool`, arguments: { name: `extra_${backend}` } });
      await waitFor(() => notes.count('notifications/tools/list_changed') > seen, 'tools/list_changed');
      await waitFor(async () => (await client.listTools()).tools.some((t) => t.name === `${backend}_extra_${backend}`), 'the new tool listed');
      expect(textOf(await client.callTool({ name: `${backend}_extra_${backend}`, arguments: {} }))).toBe(`extra_${backend}`);
    });
  }

  it('the health check of a modern backend answers (server/discover: 2026-07-28 has no ping)', async () => {
    for (const backend of ['modernhttp', 'modernstdio']) {
      const health = await waitFor(() => {
        const record = h.gateway.controller.backendRecord(backend)!;
        return record.health.last_check !== null && record.health.status === 'healthy' ? record.health : undefined;
      }, `${backend} healthy`);
      expect(health.latency_ms).toBeGreaterThanOrEqual(0);
      expect(await h.gateway.serving.get(backend)!.ping(5000)).toBeGreaterThanOrEqual(0);
    }
  });

  it('a 2026-07-28 call that needs input comes back to the gateway as its input_required result, and the retry completes', async () => {
    for (const backend of ['modernhttp', 'modernstdio']) {
      const conn = h.gateway.serving.get(backend)!;
      const first = await conn.request('tools/call', { name: 'confirm', arguments: {} }, { timeoutMs: 10_000 });
      expect(first).toMatchObject({
        resultType: 'input_required',
        requestState: 'asked',
        inputRequests: { ok: { method: 'elicitation/create', params: { message: 'Sure?' } } },
      });
      const retry = { name: 'confirm', arguments: {}, inputResponses: { ok: { action: 'accept', content: { ok: true } } }, requestState: 'asked' };
      const second = await conn.request('tools/call', retry, { timeoutMs: 10_000 });
      expect(textOf(second), backend).toBe('confirmed: {"action":"accept","content":{"ok":true}}');
    }
  });

  it('x-mcp-header parameters reach an HTTP backend as Mcp-Param-* headers (checked at the backend)', async () => {
    const answer = JSON.parse(textOf(await client.callTool({ name: 'modernhttp_region', arguments: { region: 'us-west1', query: 'q' } })));
    expect(answer).toEqual({ region: 'us-west1', header: 'us-west1' });
    const encoded = JSON.parse(textOf(await client.callTool({ name: 'modernhttp_region', arguments: { region: 'Zürich ' } })));
    expect(encoded).toEqual({ region: 'Zürich ', header: `=?base64?${Buffer.from('Zürich ').toString('base64')}?=` });
    // Pinned to 2025-11-25, the same server gets no such header.
    const legacy = JSON.parse(textOf(await client.callTool({ name: 'pinned_region', arguments: { region: 'us-west1' } })));
    expect(legacy).toEqual({ region: 'us-west1', header: null });
  });
});
