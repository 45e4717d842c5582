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
    // With an id to start after, live events wait until what is kept after it has been read.
    let reading = afterId !== undefined;
    const buffered: StreamEvent[] = [];
    const deliver = (e: StreamEvent) => {
      if (last !== undefined && compareIds(e.id, last) <= 0) return;
      last = e.id;
      onEvent(e);
    };
    /** Reads what is kept after the last event delivered, holding back the live ones meanwhile; false when the stream is gone. */
    const read = async (): Promise<boolean> => {
      reading = true;
      try {
        const [entries, exists] = await Promise.all([this.redis.xrange(key, `(${last ?? since}`, '+'), this.redis.exists(key)]);
        for (const [id, fields] of entries) deliver({ id, payload: fields[1] ?? '' });
        return exists === 1;
      } finally {
        reading = false;
        for (const e of buffered.splice(0)) deliver(e);
      }
    };
    const stopListening = await storeCall(this.log, 'follow stream', () =>
      this.bus.listen(key, (raw) => {
        const cut = raw.indexOf(' ');
        const e = { id: raw.slice(0, cut), payload: raw.slice(cut + 1) };
        if (reading) buffered.push(e);
        else deliver(e);
      }),
    );
    let catchingUp = Promise.resolve();
    const stopCatchingUp = this.bus.onResubscribed(() => {
      catchingUp = catchingUp.then(() =>
        read().then(
          () => undefined,
          () => undefined,
        ),
      );
    });
    const stop = () => {
      stopCatchingUp();
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
