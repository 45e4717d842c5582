/**
 * Hot reload end to end: editing the watched config file adds, removes and
 * changes backends while a client session through an unchanged backend keeps
 * working; filter/rename edits apply without reconnecting; an invalid edit
 * changes nothing; with hot reload off, a reload is refused (409).
 * One gateway for the whole file; each step waits on events.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startGateway, type Harness } from '../../helpers/gateway-harness.js';
import { GatewayError } from '../../../schemas/errors.js';
import { httpStatusOf, errorBody } from '../../../api/error-mapping.js';
import type { EventRecord } from '../../../schemas/records.js';
import { isAlive, waitFor } from '../../helpers/wait.js';
import { stdioFixture, whoami } from '../../fixtures/fixture-backend.js';

const stdio = stdioFixture;

const lastId = (h: Harness) => Number(h.gateway.events.list({ limit: 1 })[0]?.id ?? 0);
const after = (mark: number, pred: (e: EventRecord) => boolean) => (e: EventRecord) => Number(e.id) > mark && pred(e);

describe('controller hot reload', () => {
  let h: Harness;
  let client: Client;
  let toolListChanges = 0;
  let base: Record<string, unknown>;
  const pidOf = (name: string) => h.gateway.controller.connection(name)!.pid!;
  const config = (backends: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ ...base, backends, ...extra });

  const initialBackends = {
    keep: stdio(['--name', 'keep']),
    gone: stdio(['--name', 'gone']),
    change: stdio(['--name', 'change']),
    filt: stdio(['--name', 'filt']),
  };

  beforeAll(async () => {
    base = {
      feature_flags: { hot_reload: true },
      controller: { reload_debounce_ms: 50, backoff_initial_ms: 100, backoff_max_ms: 1000 },
      // Only the first check after each connect: a periodic one would rewrite records a test compares.
      health: { interval_s: 3600 },
    };
    h = await startGateway(config(initialBackends));
    // The harness adds these to the first write; later writes must carry them too.
    base = { ...base, server: { host: '127.0.0.1', port: 0 }, audit: { file: join(h.dir, 'audit.jsonl') } };
    // Catalog announcements come a moment after connecting; let them land before tests take their event marks.
    for (const name of Object.keys(initialBackends)) await h.waitForEvent((e) => e.backend === name && e.stage === 'catalog');
    client = await h.connect();
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      toolListChanges++;
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('editing the file adds, removes and changes backends; a session through an unchanged backend keeps working', async () => {
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId;
    const keepPid = (await whoami(client, 'keep_whoami')).pid;
    const filtPid = pidOf('filt');
    const gonePid = pidOf('gone');
    const changePid = pidOf('change');
    const notificationsBefore = toolListChanges;
    const mark = lastId(h);

    h.writeConfig(
      config({
        keep: initialBackends.keep,
        // A connection setting changed: reconnects.
        change: stdio(['--name', 'change', '--tools', 'extra']),
        // Filters and a rename only: applied without reconnecting.
        filt: { ...initialBackends.filt, filters: { tools: { allow: ['echo', 'whoami'] } }, rename: { tools: { echo: { name: 'say' } } } },
        fresh: stdio(['--name', 'fresh']),
      }),
    );
    const reload = await h.waitForEvent(after(mark, (e) => e.stage === 'reload'));
    expect(reload.details).toEqual({ trigger: 'watch', added: ['fresh'], removed: ['gone'], changed: ['change', 'filt'] });
    await h.waitForEvent(after(mark, (e) => e.backend === 'gone' && e.stage === 'removed'));
    await h.waitForEvent(after(mark, (e) => e.backend === 'change' && e.stage === 'connected'));
    await h.waitForEvent(after(mark, (e) => e.backend === 'fresh' && e.stage === 'connected'));
    for (const name of ['change', 'fresh']) await h.waitForEvent(after(mark, (e) => e.backend === name && e.stage === 'catalog'));

    // The unchanged backend: same process, same client session, no events at all.
    expect((await whoami(client, 'keep_whoami')).pid).toBe(keepPid);
    expect((client.transport as StreamableHTTPClientTransport).sessionId).toBe(sessionId);
    const since = h.gateway.events.list().filter((e) => Number(e.id) > mark);
    expect(since.filter((e) => e.backend === 'keep')).toEqual([]);

    // Filters and renames applied to the same connection.
    expect(pidOf('filt')).toBe(filtPid);
    expect(since.filter((e) => e.backend === 'filt')).toEqual([]);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names.filter((n) => n.startsWith('filt_')).sort()).toEqual(['filt_say', 'filt_whoami']);
    expect((await whoami(client, 'filt_whoami')).pid).toBe(filtPid);

    // Changed: a new process; removed: its process ended; added: serving.
    expect(pidOf('change')).not.toBe(changePid);
    expect(isAlive(changePid)).toBe(false);
    expect(isAlive(gonePid)).toBe(false);
    expect(since.find((e) => e.backend === 'change' && e.stage === 'reconnect')!.details).toEqual({ trigger: 'config' });
    expect(names).toEqual(expect.arrayContaining(['change_extra', 'fresh_echo', 'keep_echo']));
    expect(names.some((n) => n.startsWith('gone_'))).toBe(false);
    expect(h.gateway.controller.backendRecord('gone')).toBeUndefined();
    expect(h.gateway.controller.backendRecords().map((r) => r.name)).toEqual(['keep', 'change', 'filt', 'fresh']);
    const r = await client.callTool({ name: 'fresh_echo', arguments: { text: 'new' } });
    expect(r.structuredContent).toEqual({ text: 'new' });
    expect(toolListChanges).toBeGreaterThan(notificationsBefore);
  });

  it('an invalid edit changes nothing; the errors are in the answer and in an event', async () => {
    // The first health check after (re)connecting writes the record; let it land before taking the snapshot.
    await waitFor(() => h.gateway.controller.backendRecords().every((r) => r.health.status !== 'unknown'), 'every backend checked once');
    const running = h.gateway.controller.config;
    const records = JSON.stringify(h.gateway.controller.backendRecords());
    const pids = ['keep', 'change', 'filt', 'fresh'].map(pidOf);
    let mark = lastId(h);

    // Schema error via the file watch, together with an otherwise valid new backend.
    h.writeConfig(config({ ...running.backends, keep: { ...initialBackends.keep, type: 'bogus' }, extra: stdio() }));
    const failed = await h.waitForEvent(after(mark, (e) => e.stage === 'reload_failed'));
    expect(failed.severity).toBe('error');
    expect(failed.details.trigger).toBe('watch');
    expect(failed.details.errors).toEqual([expect.objectContaining({ path: 'backends.keep.type' })]);

    // The same through the API: reloaded false, errors with key path and line.
    const answer = await h.gateway.controller.reload();
    expect(answer).toMatchObject({ reloaded: false, backends_added: [], backends_removed: [], backends_changed: [] });
    expect(answer.errors).toEqual([expect.objectContaining({ path: 'backends.keep.type', line: expect.any(Number) })]);

    // A YAML syntax error.
    mark = lastId(h);
    writeFileSync(h.configPath, 'backends: [unclosed\n');
    await h.waitForEvent(after(mark, (e) => e.stage === 'reload_failed'));
    const syntax = await h.gateway.controller.reload();
    expect(syntax.reloaded).toBe(false);
    expect(syntax.errors.length).toBeGreaterThan(0);

    expect(h.gateway.controller.config).toBe(running);
    expect(JSON.stringify(h.gateway.controller.backendRecords())).toBe(records);
    expect(['keep', 'change', 'filt', 'fresh'].map(pidOf)).toEqual(pids);
    expect(h.gateway.controller.backendRecord('extra')).toBeUndefined();
    expect(h.gateway.events.list().filter(after(mark, (e) => e.backend !== ''))).toEqual([]);
    expect((await whoami(client, 'keep_whoami')).pid).toBe(pids[0]);
  });

  it('reload via the API: an identical file changes nothing; enabled: false disconnects', async () => {
    const running = h.gateway.controller.config;
    const pids = ['keep', 'change', 'filt', 'fresh'].map(pidOf);
    // The invalid file from the last test is still there; a concurrent watch reload may pick this write up too.
    h.writeConfig(config(running.backends));
    const same = await h.gateway.controller.reload();
    expect(same).toEqual({ reloaded: true, backends_added: [], backends_removed: [], backends_changed: [], errors: [] });
    expect(['keep', 'change', 'filt', 'fresh'].map(pidOf)).toEqual(pids);

    const mark = lastId(h);
    h.writeConfig(config({ ...running.backends, fresh: { ...running.backends.fresh, enabled: false } }));
    // The file watch may apply this write first; then the API answer is an empty diff. One of them reports it.
    const answer = await h.gateway.controller.reload();
    expect(answer.reloaded).toBe(true);
    const applied = await h.waitForEvent(after(mark, (e) => e.stage === 'reload' && (e.details.changed as string[]).length > 0));
    expect(applied.details).toMatchObject({ added: [], removed: [], changed: ['fresh'] });
    if (answer.backends_changed.length > 0) expect(answer.backends_changed).toEqual(['fresh']);
    await h.waitForEvent(after(mark, (e) => e.backend === 'fresh' && e.stage === 'disconnected'));
    const rec = h.gateway.controller.backendRecord('fresh')!;
    expect(rec).toMatchObject({ phase: 'Pending', state: 'disconnected', capabilities: { tools: 0 } });
    expect(rec.conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: false, reason: 'Disabled' });
    expect(isAlive(pids[3])).toBe(false);
    expect(h.gateway.serving.routes.lists.tools.some((t) => t.name.startsWith('fresh_'))).toBe(false);
    // A disabled backend is not a fault of the aggregate.
    expect(h.gateway.controller.aggregateHealth()).toMatchObject({ status: 'healthy', total: 4, connected: 3, healthy: 3 });
    const rc = await h.gateway.controller.reconnect('fresh');
    expect(rc).toEqual({ name: 'fresh', reconnected: false, error: 'fresh is disabled in config' });
  });

  it('with hot reload turned off, reload is refused with hot_reload_disabled (HTTP 409)', async () => {
    const running = h.gateway.controller.config;
    const mark = lastId(h);
    h.writeConfig(config(running.backends, { feature_flags: { hot_reload: false } }));
    // Normally the API reload applies it; should the file watch have been first, the API already refuses.
    await h.gateway.controller.reload().catch(() => undefined);
    await h.waitForEvent(after(mark, (e) => e.stage === 'reload'));
    expect(h.gateway.controller.config.feature_flags.hot_reload).toBe(false);

    const err = await h.gateway.controller.reload().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('hot_reload_disabled');
    expect(httpStatusOf(err)).toBe(409);
    expect(errorBody(err)).toEqual({
      error: 'hot_reload_disabled',
      message: expect.stringContaining('feature_flags.hot_reload'),
      details: { feature_flag: 'hot_reload' },
    });
  });
});
