/**
 * Counts MCP POST requests whose HTTP response has not finished yet. The
 * router knows when a backend answered; only this knows when the client got
 * the answer, which is what a graceful shutdown must wait for.
 */
import type { ServerResponse } from 'node:http';
import { IdleCounter } from '../../runtime/idle-counter.js';

export class RequestTracker {
  private readonly counter = new IdleCounter();

  track(res: ServerResponse): void {
    res.once('close', this.counter.begin());
  }

  whenIdle(): Promise<void> {
    return this.counter.whenIdle();
  }
}
