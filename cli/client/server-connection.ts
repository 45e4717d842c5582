/**
 * A live view of one gateway for interactive clients (the REPL's status
 * line, the TUI): its health, polled and refreshed on every event, whether
 * it answers at all, and the event stream. Emits `state` whenever what it
 * knows changes and `event` for each event record.
 */
import { EventEmitter } from 'node:events';
import type { ManagementClient } from './management-client.js';
import type { EventRecord, Health } from './api-types.js';
import { followEvents } from './event-stream.js';
import { ApiError } from './errors.js';

export interface ConnectionState {
  url: string;
  /** False until the first answer, and whenever the server stops answering. */
  reachable: boolean;
  /** The last /health answer while reachable. */
  health?: Health;
  /** Why it is not reachable, or why the event stream is refused (e.g. 401). */
  error?: string;
  /** The event stream is open. */
  streaming: boolean;
}

interface ConnectionEvents {
  state: [ConnectionState];
  event: [EventRecord];
}

export class ServerConnection extends EventEmitter<ConnectionEvents> {
  private current: ConnectionState;
  private readonly abort = new AbortController();
  private timer?: NodeJS.Timeout;
  private refreshing?: Promise<void>;

  constructor(
    readonly client: ManagementClient,
    private readonly opts: { pollMs?: number } = {},
  ) {
    super();
    this.current = { url: client.baseUrl, reachable: false, streaming: false };
  }

  get state(): ConnectionState {
    return this.current;
  }

  /** Starts polling and the event stream; the first state arrives after the first health check. */
  start(): this {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.opts.pollMs ?? 5000);
    this.timer.unref();
    void followEvents(
      this.client,
      {
        onOpen: () => {
          this.update({ streaming: true });
          void this.refresh();
        },
        onDrop: (err) => {
          this.update({ streaming: false, ...(err instanceof ApiError ? { error: err.message } : {}) });
          void this.refresh();
        },
        onEvent: (e) => {
          this.emit('event', e);
          void this.refresh();
        },
      },
      { signal: this.abort.signal, maxDelayMs: 2000 },
    );
    return this;
  }

  /** Fetches /health now (calls made meanwhile share one request). */
  refresh(): Promise<void> {
    this.refreshing ??= this.client
      .health(AbortSignal.timeout(3000))
      .then(
        (health) => this.update({ reachable: true, health, error: undefined }),
        (err: Error) => this.update({ reachable: false, health: undefined, error: err.message }),
      )
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  close(): void {
    clearInterval(this.timer);
    this.abort.abort();
    this.removeAllListeners();
  }

  private update(patch: Partial<ConnectionState>): void {
    const next = { ...this.current, ...patch };
    if (JSON.stringify(next) === JSON.stringify(this.current)) return;
    this.current = next;
    this.emit('state', next);
  }
}
