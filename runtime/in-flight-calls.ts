/**
 * Which callers have requests in flight at each backend. MCP does not link a
 * request a backend raises (sampling, elicitation, roots) to the call that
 * caused it, so the most recent in-flight caller at that backend is taken as
 * its origin: exact whenever one client session at a time calls the backend.
 */
import type { CallerContext } from './caller.js';

export class InFlightCalls {
  private readonly byBackend = new Map<string, CallerContext[]>();
  private total = 0;
  private idleWaiters: Array<() => void> = [];

  /** Registers a call; returns the function that ends it. */
  add(backend: string, caller: CallerContext): () => void {
    let list = this.byBackend.get(backend);
    if (!list) {
      list = [];
      this.byBackend.set(backend, list);
    }
    list.push(caller);
    this.total++;
    return () => {
      const i = list.lastIndexOf(caller);
      if (i < 0) return;
      list.splice(i, 1);
      if (--this.total === 0) this.notifyIdle();
    };
  }

  /** The most recent in-flight caller at a backend that can take requests. */
  latest(backend: string): CallerContext | undefined {
    const list = this.byBackend.get(backend);
    if (!list) return undefined;
    for (let i = list.length - 1; i >= 0; i--) if (list[i]!.sendRequest) return list[i];
    return undefined;
  }

  get size(): number {
    return this.total;
  }

  /** Resolves when no call is in flight (at once if none is). */
  whenIdle(): Promise<void> {
    if (this.total === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
