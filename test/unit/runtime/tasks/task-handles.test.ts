import { describe, expect, it } from 'vitest';
import { StateSeal, StateRefusedError } from '../../../../runtime/rounds/state-seal.js';
import { TaskHandles } from '../../../../runtime/tasks/task-handles.js';
import { TaskNotFoundError } from '../../../../schemas/errors.js';
import type { CallerContext } from '../../../../runtime/routing/caller.js';

const KEY = 'a-key-of-at-least-thirty-two-characters-000';
const caller = (userId?: string): CallerContext => ({ sessionId: '', transport: 'streamable-http', userId });

describe('TaskHandles', () => {
  const seal = new StateSeal(KEY);
  const handles = new TaskHandles(() => seal);

  it('leads its creator back to the backend and its task, and says nothing of them on the wire', () => {
    const id = handles.issue({ backend: 'jobs', taskId: 'backend-task-7' }, caller('alice'), 60_000);
    expect(handles.resolve(id, caller('alice'))).toEqual({ backend: 'jobs', taskId: 'backend-task-7' });
    expect(Buffer.from(id.split('.')[2]!, 'base64url').toString('latin1')).not.toContain('backend-task-7');
    // Another replica with the same key routes it as well.
    expect(new TaskHandles(() => new StateSeal(KEY)).resolve(id, caller('alice'))).toEqual({ backend: 'jobs', taskId: 'backend-task-7' });
  });

  it('is an unknown task to another identity, when tampered, made up, or under another key', () => {
    const id = handles.issue({ backend: 'jobs', taskId: 't' }, caller('alice'), null);
    const flipped = id.slice(0, -3) + (id.at(-3) === 'A' ? 'B' : 'A') + id.slice(-2);
    for (const [what, handle, who] of [
      ['another identity', id, caller('bob')],
      ['anonymous', id, caller()],
      ['tampered', flipped, caller('alice')],
      ['made up', 'g1.AAAAAAAA.AAAA', caller('alice')],
      ['not a string', 42, caller('alice')],
    ] as const) {
      expect(() => handles.resolve(handle, who), what).toThrow(TaskNotFoundError);
    }
    expect(() => new TaskHandles(() => StateSeal.ephemeral()).resolve(id, caller('alice'))).toThrow(TaskNotFoundError);
  });

  it('never opens as a requestState, nor a requestState as a task id (the seal binds its purpose)', () => {
    const id = handles.issue({ backend: 'jobs', taskId: 't' }, caller('alice'), 60_000);
    expect(() => seal.open(id)).toThrow(StateRefusedError);
    const state = seal.seal({ b: 'jobs', t: 't', o: 'u:alice' }, 60_000);
    expect(() => handles.resolve(state, caller('alice'))).toThrow(TaskNotFoundError);
  });
});
