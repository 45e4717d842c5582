/**
 * Counts MCP POST requests whose HTTP response has not finished yet. The
 * router knows when a backend answered; only this knows when the client got
 * the answer, which is what a graceful shutdown must wait for.
 */
import type { ServerResponse } from 'node:http';

export class RequestTracker {
  private active = 0;
  private waiters: Array<() => void> = [];

  track(res: ServerResponse): void {
    this.active++;
    res.once('close', () => {
      if (--this.active === 0) {
        const waiters = this.waiters;
        this.waiters = [];
        for (const w of waiters) w();
      }
    });
  }

  get size(): number {
    return this.active;
  }

  whenIdle(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
