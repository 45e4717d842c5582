/**
 * Tasks through the gateway (issue 33 item 7): a 2025-11-25 backend whose
 * tools run as tasks (the 1.x SDK's experimental tasks, over stdio and
 * streamable HTTP) serves a 2025-11-25 client (the 1.x SDK's task API) and a
 * 2026-07-28 client (raw requests: neither SDK line has a client for the
 * 2026 extension). Each creates a task, polls it to completion, gets its
 * result and cancels another; the task id it holds is the gateway's sealed
 * one; another identity presenting it is told what an unknown id is told;
 * each tasks/* request is audited with its backend and the backend's task
 * id; the capability is advertised only while a backend offers tasks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { fixtureCommand, fixtureMainPath, startHttpFixture, type HttpFixture } from '../../../fixtures/spawn.js';
import { modernRequest, type RawAnswer } from '../../../helpers/modern-call.js';
import { waitFor } from '../../../helpers/wait.js';

const ALICE = 'alice-tasks-token-0123456789abcdef';
const BOB = 'bob-tasks-token-0123456789abcdef01';
const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { extensions: { [TASKS]: {} } };
const textOf = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0]!.text;
const taskStdio = (name: string) => ({
  type: 'stdio',
  command: process.execPath,
  args: [fixtureMainPath('task-server-main'), '--transport', 'stdio', '--name', name],
});

describe('tasks through the gateway', { timeout: 60_000 }, () => {
  let h: Harness;
  let plain: Harness;
  let http: HttpFixture;
  const clients: Client[] = [];

  beforeAll(async () => {
    http = await startHttpFixture({ transport: 'streamable-http', main: fixtureMainPath('task-server-main'), name: 'taskhttp' });
    h = await startGateway({
      server: { host: '127.0.0.1', port: 0, management: { open: true } },
      incoming_auth: {
        type: 'local',
        tokens: [
          { name: 'alice', token: ALICE },
          { name: 'bob', token: BOB },
        ],
      },
      audit: { enabled: true },
      backends: { ts: taskStdio('taskstdio'), th: { type: 'streamable-http', url: http.url, protocol: '2025-11-25' } },
    });
    const fx = fixtureCommand(['--name', 'plain']);
    plain = await startGateway({ backends: { fx: { type: 'stdio', ...fx } } });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all([h?.close(), plain?.close()]);
    await http?.stop();
  });

  async function legacyClient(token?: string, url = h.url): Promise<Client> {
    const client = new Client({ name: 'legacy-tasks', version: '1.0.0' }, { capabilities: {} });
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  }

  const modern = (method: string, params: Record<string, unknown>, token = ALICE, capabilities: Record<string, unknown> = WITH_TASKS) =>
    modernRequest(h.url, method, params, { token, capabilities });

  /** What an id the gateway never issued gets: every refused id must look exactly like this. */
  const unknownError = async (ask: (taskId: string) => Promise<unknown>) => {
    const made = 'g1.AAAAAAAA.' + Buffer.alloc(40, 7).toString('base64url');
    return errorOf(() => ask(made));
  };
  const errorOf = async (run: () => Promise<unknown>) =>
    run().then(
      (r) => ({ answered: r }),
      (e: { code?: number; message?: string }) => ({ code: e.code, message: e.message }),
    );

  function auditRecords(): Array<Record<string, any>> {
    return readFileSync(join(h.dir, 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, any>);
  }

  it('tells a 2025-11-25 session it may run tool calls as tasks and cancel them (not list them), and shows each tool’s task support', async () => {
    const client = await legacyClient(ALICE);
    expect(client.getServerCapabilities()?.tasks).toEqual({ cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.request({ method: 'tools/list' }, ListToolsResultSchema);
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    expect(support).toMatchObject({ ts_job: 'optional', ts_endless_job: 'required', th_job: 'optional', th_endless_job: 'required' });
    await expect(client.experimental.tasks.listTasks()).rejects.toMatchObject({ code: -32601 });
  });

  for (const backend of ['ts', 'th']) {
    it(`a 2025-11-25 client runs ${backend}_job as a task: polls it, gets its result, cancels another`, async () => {
      const client = await legacyClient(ALICE);
      const created = await client.request(
        { method: 'tools/call', params: { name: `${backend}_job`, arguments: { ms: 200, text: `legacy ${backend}` }, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
      );
      const taskId = created.task.taskId;
      // The gateway's id: sealed, naming nothing a client could read.
      expect(taskId).toMatch(/^g1\.[\w-]+\.[\w-]+$/);
      expect(created.task.status).toBe('working');
      const done = await waitFor(async () => {
        const task = await client.experimental.tasks.getTask(taskId);
        return task.status === 'completed' ? task : undefined;
      }, 'the task to complete');
      expect(done.taskId).toBe(taskId);
      const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      expect(textOf(result)).toBe(`done: legacy ${backend}`);
      expect(result._meta?.[`io.modelcontextprotocol/related-task`]).toEqual({ taskId });

      const endless = await client.request(
        { method: 'tools/call', params: { name: `${backend}_endless_job`, arguments: {}, task: {} } },
        CreateTaskResultSchema,
      );
      const cancelled = await client.experimental.tasks.cancelTask(endless.task.taskId);
      expect(cancelled).toMatchObject({ taskId: endless.task.taskId, status: 'cancelled' });
      expect((await client.experimental.tasks.getTask(endless.task.taskId)).status).toBe('cancelled');

      // Another identity, holding the id: exactly what a made-up id gets.
      const bob = await legacyClient(BOB);
      const unknown = await unknownError((id) => bob.experimental.tasks.getTask(id));
      expect(unknown).toMatchObject({ code: -32602, message: expect.stringContaining('Task not found') });
      expect(await errorOf(() => bob.experimental.tasks.getTask(taskId))).toEqual(unknown);
      expect(await errorOf(() => bob.experimental.tasks.getTaskResult(taskId, CallToolResultSchema))).toEqual(unknown);
      expect(await errorOf(() => bob.experimental.tasks.cancelTask(taskId))).toEqual(unknown);
    });
  }

  it('tells a 2026-07-28 client in server/discover that it serves the tasks extension', async () => {
    const discovered = await modern('server/discover', {});
    expect(discovered.result?.capabilities?.extensions).toEqual({ [TASKS]: {} });
    // The 2025 vocabulary is not the 2026 client's.
    expect(discovered.result?.capabilities?.tasks).toBeUndefined();
  });

  for (const backend of ['ts', 'th']) {
    it(`a 2026-07-28 client that declares the extension gets ${backend}_job as a task: polls it to its result, cancels another`, async () => {
      const created = await modern('tools/call', { name: `${backend}_job`, arguments: { ms: 200, text: `modern ${backend}` } });
      expect(created.result).toMatchObject({ resultType: 'task', status: 'working', ttlMs: expect.any(Number), pollIntervalMs: 100 });
      const taskId = created.result!.taskId as string;
      expect(taskId).toMatch(/^g1\./);
      const done = await waitFor(async () => {
        const got = await modern('tasks/get', { taskId });
        return got.result?.status === 'completed' ? got.result : undefined;
      }, 'the task to complete');
      expect(done).toMatchObject({ resultType: 'complete', taskId, status: 'completed' });
      expect(textOf(done.result)).toBe(`done: modern ${backend}`);
      expect(done.result._meta?.['io.modelcontextprotocol/related-task']).toBeUndefined();

      const endless = await modern('tools/call', { name: `${backend}_endless_job`, arguments: {} });
      const endlessId = endless.result!.taskId as string;
      const { _meta: _serverInfo, ...ack } = (await modern('tasks/cancel', { taskId: endlessId })).result!;
      expect(ack).toEqual({ resultType: 'complete' });
      expect((await modern('tasks/get', { taskId: endlessId })).result).toMatchObject({ status: 'cancelled', taskId: endlessId });

      const unknown = await unknownError((id) => modern('tasks/get', { taskId: id }, BOB).then(rejectError));
      expect(unknown).toMatchObject({ code: -32602, message: 'Task not found' });
      for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
        expect(await errorOf(() => modern(method, { taskId, inputResponses: {} }, BOB).then(rejectError)), method).toEqual(unknown);
      }
    });
  }

  it('a 2026-07-28 client that does not declare the extension is never given a task', async () => {
    const answer = await modern('tools/call', { name: 'ts_job', arguments: { ms: 50, text: 'in one go' } }, ALICE, {});
    expect(answer.result).toMatchObject({ resultType: 'complete' });
    expect(textOf(answer.result)).toBe('done: in one go');
  });

  it('tasks/update cannot reach a 2025-11-25 backend’s task: a clear error; tasks/result is not 2026-07-28’s', async () => {
    const created = await modern('tools/call', { name: 'ts_endless_job', arguments: {} });
    const taskId = created.result!.taskId as string;
    const update = await modern('tasks/update', { taskId, inputResponses: { x: { action: 'decline' } } });
    expect(update.error).toMatchObject({ code: -32602, data: { reason: 'task_update_not_bridged' } });
    expect((await modern('tasks/result', { taskId })).error).toMatchObject({ code: -32601 });
    await modern('tasks/cancel', { taskId });
  });

  it('audits each tasks/* request with its backend and the backend’s own task id; a refused id with none', async () => {
    const before = auditRecords().length;
    const created = await modern('tools/call', { name: 'th_endless_job', arguments: {} });
    const taskId = created.result!.taskId as string;
    await modern('tasks/get', { taskId });
    await modern('tasks/cancel', { taskId });
    await modern('tasks/get', { taskId }, BOB);
    const records = await waitFor(() => {
      const found = auditRecords()
        .slice(before)
        .filter((r) => r.target.method === 'task');
      return found.some((r) => r.source.user_id === 'bob') ? found : undefined;
    }, 'the task audit records');
    const alice = records.filter((r) => r.source.user_id === 'alice' && r.target.backend === 'th');
    const get = alice.find((r) => r.target.capability_name === 'tasks/get');
    expect(get).toMatchObject({ target: { backend: 'th', method: 'task' }, outcome: { status: 'success' } });
    // The backend's own id (hex), never the gateway's sealed one.
    expect(get!.target.original_name).toMatch(/^[0-9a-f]{32}$/);
    expect(alice.some((r) => r.target.capability_name === 'tasks/cancel' && r.target.original_name === get!.target.original_name)).toBe(true);
    const refused = records.find((r) => r.source.user_id === 'bob');
    expect(refused).toMatchObject({ target: { backend: '', capability_name: 'tasks/get' }, outcome: { status: 'error', error_type: 'TaskNotFoundError' } });
    // The task-creating call is audited as any call.
    expect(auditRecords().some((r) => r.target.method === 'call_tool' && r.target.capability_name === 'th_endless_job')).toBe(true);
  });

  it('advertises nothing of tasks when no backend offers them', async () => {
    const client = await legacyClient(undefined, plain.url);
    expect(client.getServerCapabilities()?.tasks).toBeUndefined();
    const discovered = await modernRequest(plain.url, 'server/discover', {}, { capabilities: WITH_TASKS });
    expect(discovered.result?.capabilities).toBeDefined();
    expect(discovered.result?.capabilities?.extensions).toBeUndefined();
  });
});

/** A raw answer's error, thrown, so it compares with an SDK client's rejection. */
function rejectError(answer: RawAnswer): unknown {
  if (answer.error) throw answer.error;
  return answer.result;
}
