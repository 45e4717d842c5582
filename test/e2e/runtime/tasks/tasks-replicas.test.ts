/**
 * Tasks on any replica (issue 33 item 7): two real `gateway server`
 * replicas in front of one streamable-HTTP task backend (the 1.x fixture).
 * A task created through one replica is polled, fetched and cancelled
 * through the other: the id carries its backend, sealed with the key the
 * replicas share, so no task state is shared between them.
 *
 * - `sessions.store: memory` with a configured `state_key`;
 * - `sessions.store: redis` with no key: the replicas share a random one
 *   through Redis.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { startAuditedReplicas, type AuditedReplicas } from '../../../helpers/audited-replicas.js';
import { fixtureMainPath, startHttpFixture, type HttpFixture } from '../../../fixtures/spawn.js';
import { modernRequest } from '../../../helpers/modern-call.js';
import { waitFor } from '../../../helpers/wait.js';
import { auditRecords } from '../../../helpers/audit-records.js';

const MGMT = 'tasks-replicas-management-0123456789';
const STATE_KEY = 'tasks-replicas-state-key-0123456789abcdef';
const WITH_TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const textOf = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0]!.text;

const startBed = (store: 'redis' | 'memory', backend: HttpFixture): Promise<AuditedReplicas> =>
  startAuditedReplicas({
    store,
    server: { shutdown_drain_s: 0.5, ...(store === 'memory' ? { input_rounds: { state_key: '${STATE_KEY}' } } : {}) },
    backends: { th: { type: 'streamable-http', url: backend.url, protocol: '2025-11-25' } },
    managementToken: MGMT,
    env: { STATE_KEY },
  });

/** The tasks/* audit records of one replica. */
const taskRecords = (file: string) => auditRecords(file, (r) => r.target?.method === 'task');

async function legacyClient(url: string): Promise<Client> {
  const client = new Client({ name: 'legacy-tasks-replicas', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

describe('tasks on any replica', { timeout: 180_000 }, () => {
  const beds: AuditedReplicas[] = [];
  let backend: HttpFixture | undefined;
  afterAll(async () => {
    await Promise.all(beds.map((b) => b.stop()));
    await backend?.stop();
  });

  for (const store of ['memory', 'redis'] as const) {
    it(`${store}: a task made through one replica is polled, fetched and cancelled through the other`, async () => {
      backend ??= await startHttpFixture({ transport: 'streamable-http', main: fixtureMainPath('task-server-main'), name: 'shared' });
      const bed = await startBed(store, backend);
      beds.push(bed);
      const [r1, r2] = bed.replicas.map((r) => r.url) as [string, string];
      // Each replica connects the backend on its own: wait until both serve its tools.
      for (const url of [r1, r2]) {
        await waitFor(async () => {
          const d = await modernRequest(url, 'server/discover', {}, { capabilities: WITH_TASKS });
          return d.result?.capabilities?.extensions ? true : undefined;
        }, `${url} to offer tasks`);
      }

      // 2026-07-28: made on r1, polled to its result on r2.
      const created = await modernRequest(r1, 'tools/call', { name: 'th_job', arguments: { ms: 200, text: `across ${store}` } }, { capabilities: WITH_TASKS });
      expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
      const taskId = created.result!.taskId as string;
      const done = await waitFor(async () => {
        const got = await modernRequest(r2, 'tasks/get', { taskId }, { capabilities: WITH_TASKS });
        return got.result?.status === 'completed' ? got.result : undefined;
      }, 'the task to complete, seen on r2');
      expect(textOf(done.result)).toBe(`done: across ${store}`);
      // r2 routed it to the backend itself: its own audit records the backend's task.
      const seen = await waitFor(() => taskRecords(bed.audit[1]!).find((r) => r.target.capability_name === 'tasks/get'), 'r2 audit record');
      expect(seen).toMatchObject({ target: { backend: 'th' }, outcome: { status: 'success' } });

      // Made on r2, cancelled through r1.
      const endless = await modernRequest(r2, 'tools/call', { name: 'th_endless_job', arguments: {} }, { capabilities: WITH_TASKS });
      const endlessId = endless.result!.taskId as string;
      expect((await modernRequest(r1, 'tasks/cancel', { taskId: endlessId }, { capabilities: WITH_TASKS })).result).toMatchObject({ resultType: 'complete' });
      expect((await modernRequest(r2, 'tasks/get', { taskId: endlessId }, { capabilities: WITH_TASKS })).result).toMatchObject({ status: 'cancelled' });

      // 2025-11-25: a session on r1 makes it, a session on r2 polls it and gets its result.
      const [one, two] = [await legacyClient(r1), await legacyClient(r2)];
      try {
        const legacy = await one.request(
          { method: 'tools/call', params: { name: 'th_job', arguments: { ms: 100, text: `legacy ${store}` }, task: {} } },
          CreateTaskResultSchema,
        );
        const id = legacy.task.taskId;
        await waitFor(async () => ((await two.experimental.tasks.getTask(id)).status === 'completed' ? true : undefined), 'the legacy task on r2');
        expect(textOf(await two.experimental.tasks.getTaskResult(id, CallToolResultSchema))).toBe(`done: legacy ${store}`);
      } finally {
        await Promise.all([one.close(), two.close()]);
      }
    });
  }
});
