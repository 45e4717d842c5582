/**
 * One resumable SSE stream of a session: the standalone GET stream, or a
 * POST's response once it became SSE. Every event carries an id
 * (`<stream>/<seq>`, ./event-id.ts) and is kept for `replay_s`, so a client
 * whose connection dropped can come back with `Last-Event-ID` and get what
 * it missed, then the rest as it comes. A stream outlives its connection:
 * events emitted while no one is attached are kept for the next one.
 */
import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { serializeMessage } from '../../runtime/transports/json-rpc.js';
import { eventId } from './event-id.js';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** What a stream's events become on the wire; a priming event has an id and no data (SEP-1699). */
export type StreamEntry = { message: JSONRPCMessage } | { priming: true };
/** What a mirror of the stream is told: each event, then the end. */
export type MirroredEntry = StreamEntry | { end: true };

export interface SseStreamOptions {
  /** How long events are kept for a resume (ms). */
  keepMs: number;
  /** SSE keep-alive comment interval (ms); 0 turns it off. */
  keepAliveMs: number;
  /** Response headers of a (re)attached connection (the session id). */
  headers: () => Record<string, string>;
  /** Told each event as it is emitted (the cluster mirrors POST streams for a resume on another replica). */
  mirror?: (seq: number, entry: MirroredEntry) => void;
}

interface Kept {
  seq: number;
  at: number;
  text: string;
}

export class SseStream {
  private seq = 0;
  private readonly kept: Kept[] = [];
  private res?: ServerResponse;
  private keepAlive?: NodeJS.Timeout;
  private ended = false;
  /** Told when the attached connection closes before the stream ended. */
  ondetach?: () => void;

  constructor(
    readonly id: string,
    private readonly opts: SseStreamOptions,
  ) {}

  get attached(): boolean {
    return this.res !== undefined;
  }

  /** The stream has had its last event: a connection attached now gets the replay and is ended. */
  get finished(): boolean {
    return this.ended;
  }

  /**
   * Writes to `res` from now on, headers first: the kept events after
   * `afterSeq` (none when undefined: a new connection), then each new one.
   * A connection already attached is ended: the newest one wins.
   */
  attach(res: ServerResponse, afterSeq?: number): void {
    this.release(true);
    if (!res.headersSent) {
      res.writeHead(200, { ...SSE_HEADERS, ...this.opts.headers() });
      res.flushHeaders();
    }
    if (afterSeq !== undefined) for (const k of this.kept) if (k.seq > afterSeq) res.write(k.text);
    if (this.ended) {
      res.end();
      return;
    }
    this.res = res;
    this.keepAlive = armKeepAlive(res, this.opts.keepAliveMs);
    res.once('close', () => {
      if (this.res !== res) return;
      this.release(false);
      this.ondetach?.();
    });
  }

  /** An event: written to the attached connection if any, and kept for a resume. */
  emit(entry: StreamEntry): void {
    const seq = ++this.seq;
    const text =
      'message' in entry
        ? `id: ${eventId(this.id, seq)}\nevent: message\ndata: ${serializeMessage(entry.message)}\n\n`
        : `id: ${eventId(this.id, seq)}\ndata: \n\n`;
    const now = Date.now();
    this.kept.push({ seq, at: now, text });
    // Events older than the replay window go; the newest always stays (a resume must find its cursor).
    while (this.kept.length > 1 && now - this.kept[0]!.at > this.opts.keepMs) this.kept.shift();
    this.opts.mirror?.(seq, entry);
    const res = this.res;
    if (res && !res.writableEnded && !res.destroyed) res.write(text);
  }

  /** The stream's last event was emitted: the attached connection ends; a later resume gets the replay, then the end. */
  finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.opts.mirror?.(++this.seq, { end: true });
    this.release(true);
  }

  /**
   * Ends the attached connection without finishing the stream; with
   * `retryMs` it first tells the client when to reconnect (a draining replica).
   */
  close(retryMs?: number): void {
    const res = this.res;
    if (res && retryMs !== undefined && !res.writableEnded && !res.destroyed) res.write(`retry: ${Math.round(retryMs)}\n\n`);
    this.release(true);
  }

  /** Whether `seq` can be resumed from: it was emitted here and nothing after it has been dropped yet. */
  canResumeAfter(seq: number): boolean {
    if (seq > this.seq || seq < 0) return false;
    const oldest = this.kept[0]?.seq ?? this.seq + 1;
    return seq >= oldest - 1;
  }

  private release(end: boolean): void {
    const res = this.res;
    this.res = undefined;
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
    if (end && res && !res.writableEnded) res.end();
  }
}

export function armKeepAlive(res: ServerResponse, everyMs: number): NodeJS.Timeout | undefined {
  if (!(everyMs > 0)) return undefined;
  const timer = setInterval(() => {
    if (res.writableEnded || res.destroyed) clearInterval(timer);
    else res.write(': keepalive\n\n');
  }, everyMs);
  timer.unref();
  return timer;
}
