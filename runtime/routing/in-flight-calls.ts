/**
 * Which callers have requests in flight at each backend. MCP does not link a
 * request a backend raises (sampling, elicitation, roots) to the call that
 * caused it, so the most recent in-flight caller at that backend is taken as
 * its origin: exact whenever one client session at a time calls the backend.
 */
import type { CallerContext } from './caller.js';
import { IdleCounter } from '../idle-counter.js';

export class InFlightCalls {
  private readonly byBackend = new Map<string, CallerContext[]>();
  private readonly counter = new IdleCounter();

  /** Registers a call; returns the function that ends it. */
  add(backend: string, caller: CallerContext): () => void {
    let list = this.byBackend.get(backend);
    if (!list) {
      list = [];
      this.byBackend.set(backend, list);
    }
    list.push(caller);
    const end = this.counter.begin();
    return () => {
      const i = list.lastIndexOf(caller);
      if (i < 0) return;
      list.splice(i, 1);
      end();
    };
  }

  /** The most recent in-flight caller at a backend that can take requests. */
  latest(backend: string): CallerContext | undefined {
    const list = this.byBackend.get(backend);
    if (!list) return undefined;
    for (let i = list.length - 1; i >= 0; i--) if (list[i].sendRequest) return list[i];
    return undefined;
  }

  /** Every caller with a request in flight at a backend, oldest first. */
  callers(backend: string): readonly CallerContext[] {
    return this.byBackend.get(backend) ?? [];
  }

  get size(): number {
    return this.counter.size;
  }

  /** Resolves when no call is in flight (at once if none is). */
  whenIdle(): Promise<void> {
    return this.counter.whenIdle();
  }
}
