/**
 * The tasks methods, added to the method table both revisions share: the
 * one place tasks enter the call path (runtime/tasks/task-routes.ts does the
 * work). `tools/call` is wrapped so a backend's task reaches the client under
 * the gateway's id; `tasks/get`, `tasks/result` (2025-11-25), `tasks/cancel`
 * and `tasks/update` (2026-07-28) go to the task's backend. `tasks/list` is
 * not served (answered -32601, and not advertised).
 */
import type { TaskMethod, TaskRoutes } from '../../../runtime/tasks/task-routes.js';
import { TASKS_EXTENSION } from '../../../runtime/tasks/task-shapes.js';
import type { MethodHandler, MethodTable } from './mcp-call.js';

const TASK_METHODS: readonly TaskMethod[] = ['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/update'];

/** The tasks methods 2026-07-28 re-uses from 2025-11-25: its era gate serves them only when registered with a schema (stateless-server.ts). */
export const REUSED_TASK_METHODS: readonly string[] = ['tasks/get', 'tasks/cancel'];

export function withTaskMethods(methods: MethodTable, tasks: TaskRoutes): MethodTable {
  const table = new Map(methods);
  const callTool = methods.get('tools/call');
  if (callTool) {
    table.set('tools/call', (call) =>
      tasks.callTool(call.caller, call.params, call.forward, (params, forward) => callTool({ params, caller: call.caller, forward })),
    );
  }
  for (const method of TASK_METHODS) {
    const handler: MethodHandler = ({ params, caller, forward }) => tasks.serve(method, caller, params, forward.signal);
    table.set(method, handler);
  }
  return table;
}

/** What a 2025-11-25 session is told, beside the gateway's own capabilities, when some backend offers tasks (no `list`: see above). */
export const LEGACY_TASKS_CAPABILITY = { tasks: { cancel: {}, requests: { tools: { call: {} } } } };

/** What `server/discover` says, beside the gateway's own capabilities, when some backend offers tasks. */
export const MODERN_TASKS_CAPABILITY = { extensions: { [TASKS_EXTENSION]: {} } };
