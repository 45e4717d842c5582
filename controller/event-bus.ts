/**
 * Event records in a bounded ring buffer, published to live subscribers.
 * Ids are monotonic so a client can tell order and gaps.
 */
import type { EventRecord, Severity, Stage } from '../schemas/records.js';

export type EventListener = (event: EventRecord) => void;

export interface EventInput {
  stage: Stage;
  message: string;
  severity?: Severity;
  /** Empty for gateway-wide events (reload, shutdown). */
  backend?: string;
  details?: Record<string, unknown>;
}

export class EventBus {
  private readonly buffer: EventRecord[] = [];
  private readonly listeners = new Set<EventListener>();
  private seq = 0;

  constructor(private capacity: number) {}

  resize(capacity: number): void {
    this.capacity = capacity;
    if (this.buffer.length > capacity) this.buffer.splice(0, this.buffer.length - capacity);
  }

  emit(input: EventInput): EventRecord {
    const event: EventRecord = {
      id: String(++this.seq),
      timestamp: new Date().toISOString(),
      stage: input.stage,
      message: input.message,
      severity: input.severity ?? 'info',
      backend: input.backend ?? '',
      details: input.details ?? {},
    };
    this.buffer.push(event);
    if (this.buffer.length > this.capacity) this.buffer.shift();
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A broken subscriber must not stop the others or the emitter.
      }
    }
    return event;
  }

  /** Most recent last; `limit` keeps the newest. */
  list(filter: { limit?: number; since?: Date; severity?: string } = {}): EventRecord[] {
    let events = this.buffer;
    if (filter.since) {
      const since = filter.since.getTime();
      events = events.filter((e) => Date.parse(e.timestamp) > since);
    }
    if (filter.severity) events = events.filter((e) => e.severity === filter.severity);
    const limit = filter.limit ?? events.length;
    return limit >= events.length ? [...events] : events.slice(events.length - limit);
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }
}
