/**
 * SSE streams of shared sessions as Redis streams: each event appended
 * (and trimmed to the replay window) and published on the stream's channel
 * in one atomic step, so a replica that follows a stream gets every event
 * once, in order: first what is kept after the client's `Last-Event-ID`,
 * then each new one as it is published.
 *
 * Payloads: `m<json>` a message, `p` a priming event (an id, no data), `o`
 * the opening of a GET stream (no event for the client), `e` the end of a
 * POST stream.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../observability/logging/logger.js';
import type { ClusterBus } from './cluster-bus.js';
import type { RedisKeys } from './redis-keys.js';
import { runScript } from './redis-scripts.js';
import { storeCall } from './store-call.js';

export interface StreamEvent {
  id: string;
  payload: string;
}

/** At most this many events of a POST stream are kept (a GET stream is trimmed by time instead). */
const MAX_POST_STREAM_EVENTS = 10_000;

export class RedisEventStore {
  constructor(
    private readonly redis: Redis,
    private readonly bus: ClusterBus,
    private readonly keys: RedisKeys,
    private readonly keepMs: number,
    private readonly log: Logger,
  ) {}

  /**
   * Appends an event. `id`: the producer's own (a POST stream has one
   * producer) or Redis numbers it (the standalone stream, which any replica
   * may write). `onlyIfOpen`: only when the stream exists (a GET stream is
   * open, or dropped less than the replay window ago). The event's id, or
   * undefined when it was not kept.
   */
  append(sessionId: string, stream: string, payload: string, opts: { id?: string; onlyIfOpen?: boolean } = {}): Promise<string | undefined> {
    return storeCall(this.log, 'append event', async () => {
      const byTime = opts.id === undefined;
      const id = await runScript(
        this.redis,
        'gwAppendEvent',
        [this.keys.events(sessionId, stream)],
        [
          opts.id ?? '*',
          payload,
          Math.ceil(this.keepMs),
          opts.onlyIfOpen ? '1' : '0',
          byTime ? `${Math.max(0, Date.now() - Math.ceil(this.keepMs))}-0` : '',
          MAX_POST_STREAM_EVENTS,
        ],
      );
      return typeof id === 'string' ? id : undefined;
    });
  }

  /** Keeps a stream another replay window (an open GET stream with nothing to say still exists). */
  refresh(sessionId: string, stream: string): Promise<void> {
    return storeCall(this.log, 'refresh stream', async () => {
      await this.redis.pexpire(this.keys.events(sessionId, stream), Math.ceil(this.keepMs));
    });
  }

  /**
   * Follows a stream: the events after `afterId` (none when undefined: only
   * what comes from now on), then each new one, in order and never twice.
   * After a gap in the subscription (the subscriber reconnected) what was
   * appended meanwhile is read from the stream before what comes live.
   * Undefined (nothing delivered) when `afterId` is given and the stream is
   * not kept any more.
   */
  async follow(sessionId: string, stream: string, afterId: string | undefined, onEvent: (e: StreamEvent) => void): Promise<(() => void) | undefined> {
    const key = this.keys.events(sessionId, stream);
    // Without an id to start after, a catch-up starts at the time following began (ids of Redis' own numbering are times).
    let last = afterId;
    const since = `${Date.now()}-0`;
    // Live events wait while a read is due: with an id to start after, and from a lost connection until the read after it.
    let gap = false;
    let holding = afterId !== undefined;
    const held: StreamEvent[] = [];
    const deliver = (e: StreamEvent) => {
      if (last !== undefined && compareIds(e.id, last) <= 0) return;
      last = e.id;
      onEvent(e);
    };
    /** Reads what is kept after the last event delivered, then what waited; false when the stream is gone. One at a time. */
    let reads: Promise<unknown> = Promise.resolve();
    const read = (): Promise<boolean> => {
      const run = reads.then(async () => {
        holding = true;
        try {
          const [entries, exists] = await Promise.all([this.redis.xrange(key, `(${last ?? since}`, '+'), this.redis.exists(key)]);
          for (const [id, fields] of entries) deliver({ id, payload: fields[1] ?? '' });
          return exists === 1;
        } finally {
          holding = gap;
          if (!holding) for (const e of held.splice(0)) deliver(e);
        }
      });
      reads = run.catch(() => undefined);
      return run;
    };
    const stopListening = await storeCall(this.log, 'follow stream', () =>
      this.bus.listen(key, (raw) => {
        const cut = raw.indexOf(' ');
        const e = { id: raw.slice(0, cut), payload: raw.slice(cut + 1) };
        if (holding) held.push(e);
        else deliver(e);
      }),
    );
    const stopLost = this.bus.onLost(() => {
      gap = true;
      holding = true;
    });
    const stopResubscribed = this.bus.onResubscribed(() => {
      gap = false;
      read().catch(() => undefined);
    });
    const stop = () => {
      stopLost();
      stopResubscribed();
      stopListening();
    };
    if (afterId === undefined) return stop;
    try {
      if (await storeCall(this.log, 'read stream', read)) return stop;
    } catch (err) {
      stop();
      throw err;
    }
    stop();
    return undefined;
  }
}

/** Orders Redis stream ids (`<ms>-<seq>`). */
export function compareIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am !== bm ? am - bm : as - bs;
}
