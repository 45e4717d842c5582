/**
 * Tasks through the gateway (2025-11-25's experimental tasks, and
 * 2026-07-28's `io.modelcontextprotocol/tasks` extension): a backend's task
 * handle reaches the client under a sealed id (./task-handles.ts) that names
 * the backend, the backend's task and the caller, so `tasks/*` go to the
 * owning backend from any replica and only for the caller that created the
 * task. Only 2025-11-25 backends own tasks here: the gateway does not declare
 * the extension to 2026-07-28 backends (the SDK's v2 client refuses a
 * `resultType: "task"`), so they answer synchronously
 * (docs/protocol-versions.md#tasks).
 *
 * `tasks/list` is not served: the backend lists every task the gateway made,
 * for every caller, and the gateway keeps no record of which is whose.
 */
import { BackendUnavailableError, BadRequestError } from '../../schemas/errors.js';
import { MODERN_REVISION } from '../backends/negotiation.js';
import type { ServingTarget } from '../backends/serving-backends.js';
import type { CallerContext, ForwardOptions, JsonObject } from '../routing/caller.js';
import type { OperationContext } from '../routing/operation.js';
import { operationFor } from '../routing/caller-operation.js';
import type { RouteTable } from '../routing/route-table.js';
import type { TaskHandles } from './task-handles.js';
import { createdTaskOf, declaresTasksExtension, isTerminal, modernTask, withoutRelatedTask, withRelatedTask, type LegacyTask } from './task-shapes.js';

/** What the gateway knows of its backends: whose tool a name is, and what each connection speaks and offers. */
export interface TaskBackends {
  readonly routes: RouteTable;
  servingNames(): string[];
  get(name: string): { readonly modern: boolean; readonly serverCapabilities?: { tasks?: unknown } } | undefined;
}

/** The router's side: operations through its interceptors (audit, telemetry), and what serves a backend now. */
export interface TaskRouter {
  runOperation<T>(ctx: OperationContext, step: () => Promise<T>): Promise<T>;
  targetOf(backend: string): ServingTarget | undefined;
}

/** A tools/call as the method table runs it. */
export type ToolCall = (params: JsonObject, forward: ForwardOptions) => Promise<JsonObject>;

export type TaskMethod = 'tasks/get' | 'tasks/result' | 'tasks/cancel' | 'tasks/update';

export class TaskRoutes {
  constructor(
    private readonly router: TaskRouter,
    private readonly backends: TaskBackends,
    private readonly handles: TaskHandles,
  ) {}

  /** Whether some backend in service can run a tool call as a task (2025-11-25 `tasks.requests.tools.call`). */
  offered(): boolean {
    return this.backends.servingNames().some((name) => {
      const conn = this.backends.get(name);
      return conn !== undefined && !conn.modern && tasksForToolCalls(conn.serverCapabilities?.tasks);
    });
  }

  /**
   * A tool call, with what tasks need around it: a 2026-07-28 client that
   * declared the extension has a 2025 backend's task-capable tool run as a
   * task (2025 tasks are asked for by the client, 2026 ones offered by the
   * server); a task the backend made comes back under the gateway's id, in
   * the client's revision.
   */
  async callTool(caller: CallerContext, params: JsonObject, forward: ForwardOptions, run: ToolCall): Promise<JsonObject> {
    const modern = caller.protocolVersion === MODERN_REVISION;
    const sent = modern && declaresTasksExtension(caller.clientCapabilities) && this.runsAsTask(params.name) ? { ...params, task: {} } : params;
    let backend: string | undefined;
    const result = await run(sent, {
      ...forward,
      onBackend: (name) => {
        backend = name;
        forward.onBackend?.(name);
      },
    });
    const task = createdTaskOf(result);
    if (!task || backend === undefined) return result;
    const taskId = this.handles.issue({ backend, taskId: task.taskId }, caller, task.ttl);
    if (!modern) return { ...result, task: { ...task, taskId } };
    const meta = result._meta as JsonObject | undefined;
    return { resultType: 'task', ...modernTask(task, taskId), ...(meta && { _meta: meta }) };
  }

  /** `tasks/get`, `tasks/result`, `tasks/cancel`, `tasks/update` for the caller's task, at its backend. */
  serve(method: TaskMethod, caller: CallerContext, params: JsonObject, signal?: AbortSignal): Promise<JsonObject> {
    const handle = params.taskId;
    const modern = caller.protocolVersion === MODERN_REVISION;
    // As the audit and telemetry see it: the method asked (the owning backend and its task id are set once known).
    const ctx = operationFor(caller, 'task', method);
    // Inside the operation, so an id refused as unknown is audited too (with no backend, as an unknown tool name is).
    return this.router.runOperation(ctx, async () => {
      const ref = this.handles.resolve(handle, caller);
      ctx.backend = ref.backend;
      ctx.originalName = ref.taskId;
      const target = this.router.targetOf(ref.backend);
      if (!target) throw new BackendUnavailableError(ref.backend, 'not connected');
      const ask = (m: string) => target.request(m, { taskId: ref.taskId }, { signal, timeoutMs: target.requestTimeoutMs, caller });
      switch (method) {
        case 'tasks/get':
          return modern ? this.detailed((await ask('tasks/get')) as LegacyTask, handle as string, ask) : { ...(await ask('tasks/get')), taskId: handle };
        case 'tasks/result':
          return withRelatedTask(await ask('tasks/result'), handle as string);
        case 'tasks/cancel': {
          const cancelled = await ask('tasks/cancel');
          return modern ? {} : { ...cancelled, taskId: handle };
        }
        case 'tasks/update':
          // A 2025 backend takes a task's input on its tasks/result stream, as requests to the client: nothing to update.
          throw new BadRequestError('tasks/update cannot reach this task: its backend speaks 2025-11-25, whose tasks take no input this way', {
            reason: 'task_update_not_bridged',
          });
      }
    });
  }

  /** A 2026-07-28 `tasks/get`: the task, and once it is done its result (or its error), fetched from the 2025 backend. */
  private async detailed(task: LegacyTask, taskId: string, ask: (method: string) => Promise<JsonObject>): Promise<JsonObject> {
    const shown = modernTask(task, taskId);
    if (!isTerminal(task.status) || task.status === 'cancelled') return shown;
    const outcome = await ask('tasks/result').then(
      (result) => ({ result: withoutRelatedTask(result) }),
      (err: unknown) => ({ failure: err as Error & { rpcCode?: number } }),
    );
    if (task.status === 'completed' && 'result' in outcome) return { ...shown, result: outcome.result };
    if ('failure' in outcome) return { ...shown, status: 'failed', error: { code: outcome.failure.rpcCode ?? -32603, message: outcome.failure.message } };
    return { ...shown, error: { code: -32603, message: task.statusMessage ?? 'The task failed', data: { result: outcome.result } } };
  }

  /** Whether the tool is a 2025 backend's that may run as a task. */
  private runsAsTask(name: unknown): boolean {
    const route = typeof name === 'string' ? this.backends.routes.tools.get(name) : undefined;
    const support = (route?.tool.execution as { taskSupport?: string } | undefined)?.taskSupport;
    if (support !== 'optional' && support !== 'required') return false;
    const conn = this.backends.get(route!.backend);
    return conn !== undefined && !conn.modern;
  }
}

function tasksForToolCalls(tasks: unknown): boolean {
  const requests = (tasks as { requests?: { tools?: { call?: unknown } } } | undefined)?.requests;
  return requests?.tools?.call !== undefined;
}
