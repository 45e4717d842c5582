/**
 * The task id a client is given for a backend's task: the owning backend,
 * the backend's own task id and the identity that created it, sealed
 * (runtime/rounds/state-seal.ts, the key of `server.input_rounds`, with its
 * own purpose so a task id never opens as a `requestState`). Any replica
 * holding the key routes it back without shared state; an id that does not
 * open, has expired, or belongs to another identity is answered exactly as
 * an unknown task.
 */
import type { StateSeal } from '../rounds/state-seal.js';
import { ownerOf } from '../rounds/call-binding.js';
import type { CallerContext } from '../routing/caller.js';
import { TaskNotFoundError } from '../../schemas/errors.js';

/** How long a task id stays good when the backend gives its task no lifetime (`ttl: null`, unlimited). */
export const UNLIMITED_TASK_HANDLE_MS = 7 * 24 * 3600_000;
/** A little beyond the backend's own lifetime: the backend, not the seal, says when the task is gone. */
const HANDLE_MARGIN_MS = 60_000;

/** Where a task id leads. */
export interface TaskRef {
  backend: string;
  /** The backend's own task id. */
  taskId: string;
}

interface SealedTask {
  /** Backend. */
  b: string;
  /** The backend's task id. */
  t: string;
  /** ownerOf(caller) of the creator. */
  o: string;
}

export class TaskHandles {
  constructor(private readonly seal: () => StateSeal) {}

  /** The id a client is given for `ref`, good as long as the backend keeps the task (`ttlMs`; null: unlimited). */
  issue(ref: TaskRef, caller: CallerContext, ttlMs: number | null | undefined): string {
    const lifetime = typeof ttlMs === 'number' && ttlMs > 0 ? ttlMs + HANDLE_MARGIN_MS : UNLIMITED_TASK_HANDLE_MS;
    const payload: SealedTask = { b: ref.backend, t: ref.taskId, o: ownerOf(caller) };
    return this.seal().seal(payload, lifetime, Date.now(), 'taskId');
  }

  /** Where the id leads, for this caller; TaskNotFoundError for anything else (never says why to the client). */
  resolve(handle: unknown, caller: CallerContext): TaskRef {
    if (typeof handle !== 'string') throw new TaskNotFoundError();
    let sealed: SealedTask;
    try {
      sealed = this.seal().open<SealedTask>(handle, Date.now(), 'taskId');
    } catch {
      throw new TaskNotFoundError();
    }
    if (sealed.o !== ownerOf(caller) || typeof sealed.b !== 'string' || typeof sealed.t !== 'string') throw new TaskNotFoundError();
    return { backend: sealed.b, taskId: sealed.t };
  }
}
