/**
 * A task as each revision writes it. 2025-11-25 (experimental tasks,
 * basic/utilities/tasks): `CreateTaskResult` is `{ task }`, a task has `ttl`
 * and `pollInterval`, the result comes from `tasks/result`. 2026-07-28's
 * extension (`io.modelcontextprotocol/tasks`, SEP-2663): `CreateTaskResult`
 * is the task itself with `resultType: "task"`, a task has `ttlMs` and
 * `pollIntervalMs`, and `tasks/get` carries the result (or error) of a
 * finished task.
 */
import type { JsonObject } from '../routing/caller.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

/** A 2025-11-25 task, as its backend wrote it. */
export interface LegacyTask extends JsonObject {
  taskId: string;
  status: string;
  ttl?: number | null;
  pollInterval?: number;
  statusMessage?: string;
  createdAt?: string;
  lastUpdatedAt?: string;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

export function isTerminal(status: string): boolean {
  return TERMINAL.has(status);
}

/** The task of a 2025-11-25 `CreateTaskResult` (`{ task }` with no content), or undefined for any other result. */
export function createdTaskOf(result: JsonObject): LegacyTask | undefined {
  const task = result.task as Partial<LegacyTask> | undefined;
  if (result.content !== undefined || typeof task !== 'object' || task === null || typeof task.taskId !== 'string') return undefined;
  return task as LegacyTask;
}

/** Whether a 2026-07-28 request's client declared the tasks extension in its envelope's capabilities. */
export function declaresTasksExtension(capabilities: Readonly<Record<string, unknown>> | undefined): boolean {
  const extensions = capabilities?.extensions as Record<string, unknown> | undefined;
  return typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION in extensions;
}

/** A 2025-11-25 task in the 2026-07-28 shape, under the id the client knows it by. */
export function modernTask(task: LegacyTask, taskId: string): JsonObject {
  // A 2025 task waiting for input would send its requests on a `tasks/result` stream: a 2026 client cannot be asked
  // that way, so it is shown working, and says why (docs/protocol-versions.md#tasks).
  const waiting = task.status === 'input_required';
  return {
    taskId,
    status: waiting ? 'working' : task.status,
    ...(waiting
      ? { statusMessage: 'The backend waits for input the gateway cannot relay to this client' }
      : task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
    createdAt: task.createdAt ?? new Date().toISOString(),
    lastUpdatedAt: task.lastUpdatedAt ?? task.createdAt ?? new Date().toISOString(),
    ttlMs: typeof task.ttl === 'number' ? task.ttl : null,
    ...(typeof task.pollInterval === 'number' && { pollIntervalMs: task.pollInterval }),
  };
}

/** A result under the id the client knows its task by: the related-task `_meta` names the client's id, not the backend's. */
export function withRelatedTask(result: JsonObject, taskId: string): JsonObject {
  const meta = result._meta as JsonObject | undefined;
  if (!meta || !(RELATED_TASK_META in meta)) return result;
  return { ...result, _meta: { ...meta, [RELATED_TASK_META]: { taskId } } };
}

/** A task's final result as a 2026-07-28 `tasks/get` carries it: the backend's related-task `_meta` means nothing to the client. */
export function withoutRelatedTask(result: JsonObject): JsonObject {
  const meta = result._meta as JsonObject | undefined;
  if (!meta || !(RELATED_TASK_META in meta)) return result;
  const { [RELATED_TASK_META]: _drop, ...rest } = meta;
  return Object.keys(rest).length === 0 ? withoutMeta(result) : { ...result, _meta: rest };
}

function withoutMeta(result: JsonObject): JsonObject {
  const { _meta: _drop, ...rest } = result;
  return rest;
}
