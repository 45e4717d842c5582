/**
 * The ClusterLink of `sessions.store: redis`: what a session's transport
 * needs from the other replicas, over the Redis cluster
 * (../../runtime/cluster/). The standalone stream of a shared session is a
 * Redis stream any replica may append to; the replica whose connection
 * carries it follows it. This link also knows which sessions' GET streams
 * this replica holds: their resource updates and list_changed are this
 * replica's to deliver (./redis-session-table.ts).
 */
import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { RedisCluster } from '../../runtime/cluster/redis-cluster.js';
import type { StreamEvent } from '../../runtime/cluster/redis-event-store.js';
import type { Logger } from '../../runtime/observability/logging/logger.js';
import { serializeMessage } from '../../runtime/transports/json-rpc.js';
import type { ClusterLink, FollowedStream } from './cluster-link.js';
import { STANDALONE_STREAM, eventId, parseSeq } from './event-id.js';
import { SSE_HEADERS, armKeepAlive, type MirroredEntry } from './sse-stream.js';

const REDIS_ID = /^\d{1,15}-\d{1,15}$/;

function payloadOf(entry: MirroredEntry): string {
  if ('message' in entry) return `m${serializeMessage(entry.message)}`;
  return 'priming' in entry ? 'p' : 'e';
}

interface Held {
  close(retryMs?: number): void;
}

export class RedisClusterLink implements ClusterLink {
  readonly tag: string;
  /** GET streams this replica carries, by session. */
  private readonly held = new Map<string, Held>();
  /** Sessions whose GET stream dropped here: still this replica's to deliver for, until the replay window ends. */
  private readonly lingering = new Map<string, NodeJS.Timeout>();
  private readonly holderListeners = new Set<(sessionId: string, holds: boolean) => void>();

  constructor(
    private readonly cluster: RedisCluster,
    private readonly replayMs: number,
    private readonly log: Logger,
  ) {
    this.tag = cluster.tag;
  }

  /** Whether this replica delivers the session's notifications tied to no request (it holds, or just held, its GET stream). */
  holds(sessionId: string): boolean {
    return this.held.has(sessionId) || this.lingering.has(sessionId);
  }

  /** Told when this replica starts or stops being the one that delivers a session's notifications. */
  onHolder(listener: (sessionId: string, holds: boolean) => void): void {
    this.holderListeners.add(listener);
  }

  /** Another replica took the session's GET stream: ours (a connection the client left) ends, and so does our part. */
  superseded(sessionId: string): void {
    this.held.get(sessionId)?.close();
    this.release(sessionId);
  }

  forwardResponse(sessionId: string, tag: string, message: JSONRPCMessage): void {
    this.cluster.tell(tag, { t: 'response', s: sessionId, m: message, from: this.tag });
  }

  broadcastCancel(sessionId: string, message: JSONRPCMessage): void {
    this.cluster.broadcast({ t: 'cancel', s: sessionId, m: message, from: this.tag });
  }

  mirror(sessionId: string, stream: string, seq: number, entry: MirroredEntry): void {
    this.cluster.events.append(sessionId, stream, payloadOf(entry), { id: `0-${seq}` }).catch(() => undefined);
  }

  async resume(sessionId: string, stream: string, seq: string, res: ServerResponse, headers: Record<string, string>): Promise<boolean> {
    const after = parseSeq(seq);
    const producer = stream.split('.')[0];
    if (after === undefined || !producer || producer === this.tag) return false;
    const head = () => {
      if (!res.headersSent) res.writeHead(200, { ...SSE_HEADERS, ...headers });
    };
    // Filled in once following: the end may come during the replay, before either exists.
    const live: { keepAlive?: NodeJS.Timeout; stop?: () => void } = {};
    const end = () => {
      clearInterval(live.keepAlive);
      live.stop?.();
      if (!res.writableEnded) res.end();
    };
    const stopped = await this.cluster.events.follow(sessionId, stream, `0-${after}`, (e) => {
      const text = sseText(stream, e, (redisId) => redisId.split('-')[1] ?? redisId);
      head();
      if (text === 'end') return end();
      if (text && !res.writableEnded) res.write(text);
    });
    // Not kept (unknown, or older than the replay window): nothing was written.
    if (!stopped) return false;
    live.stop = stopped;
    head();
    if (res.writableEnded) {
      stopped();
      return true;
    }
    res.flushHeaders();
    live.keepAlive = armKeepAlive(res, 15_000);
    this.cluster.tell(producer, { t: 'follower', s: sessionId, stream, delta: 1, from: this.tag });
    res.once('close', () => {
      end();
      this.cluster.tell(producer, { t: 'follower', s: sessionId, stream, delta: -1, from: this.tag });
    });
    return true;
  }

  sendStandalone(sessionId: string, message: JSONRPCMessage): void {
    this.cluster.events.append(sessionId, STANDALONE_STREAM, `m${serializeMessage(message)}`, { onlyIfOpen: true }).catch(() => undefined);
  }

  async openStandalone(
    sessionId: string,
    res: ServerResponse,
    opts: { afterId?: string; primed: boolean; headers: Record<string, string>; keepAliveMs: number },
  ): Promise<FollowedStream> {
    const events = this.cluster.events;
    const write = (e: StreamEvent) => {
      const text = sseText(STANDALONE_STREAM, e, (id) => id);
      head();
      if (text && text !== 'end' && !res.writableEnded && !res.destroyed) res.write(text);
    };
    const head = () => {
      if (!res.headersSent) res.writeHead(200, { ...SSE_HEADERS, ...opts.headers });
    };
    const resumeFrom = opts.afterId !== undefined && REDIS_ID.test(opts.afterId) ? opts.afterId : undefined;
    let stop = resumeFrom ? await events.follow(sessionId, STANDALONE_STREAM, resumeFrom, write) : undefined;
    if (!stop) {
      // A new stream (or one whose events are no longer kept): it starts with an event that gives the client an id.
      stop = await events.follow(sessionId, STANDALONE_STREAM, undefined, write);
      await events.append(sessionId, STANDALONE_STREAM, opts.primed ? 'p' : 'o').catch((err: unknown) => {
        stop?.();
        throw err;
      });
    }
    head();
    res.flushHeaders();
    const following = stop ?? (() => undefined);
    // The stream must outlive quiet times: refreshed well within the replay window.
    const refreshEvery = Math.max(50, Math.min(opts.keepAliveMs > 0 ? opts.keepAliveMs : Infinity, this.replayMs / 3));
    const refresh = setInterval(() => void events.refresh(sessionId, STANDALONE_STREAM).catch(() => undefined), refreshEvery);
    refresh.unref();
    const keepAlive = armKeepAlive(res, opts.keepAliveMs);
    let open = true;
    const held: Held = {
      close: (retryMs?: number) => {
        if (retryMs !== undefined && !res.writableEnded && !res.destroyed) res.write(`retry: ${Math.round(retryMs)}\n\n`);
        if (!res.writableEnded) res.end();
      },
    };
    const closed = () => {
      if (!open) return;
      open = false;
      clearInterval(refresh);
      clearInterval(keepAlive);
      following();
      if (this.held.get(sessionId) === held) {
        this.held.delete(sessionId);
        this.linger(sessionId);
      }
    };
    res.once('close', closed);
    this.hold(sessionId, held);
    this.cluster.broadcast({ t: 'holder', s: sessionId, from: this.tag });
    return { close: (retryMs?: number) => held.close(retryMs) };
  }

  private hold(sessionId: string, held: Held): void {
    const before = this.holds(sessionId);
    clearTimeout(this.lingering.get(sessionId));
    this.lingering.delete(sessionId);
    const previous = this.held.get(sessionId);
    this.held.set(sessionId, held);
    previous?.close();
    if (!before) for (const listener of this.holderListeners) listener(sessionId, true);
  }

  /** The GET stream dropped: its events are still kept (and its updates still delivered) for the replay window. */
  private linger(sessionId: string): void {
    clearTimeout(this.lingering.get(sessionId));
    const timer = setTimeout(() => this.release(sessionId), this.replayMs);
    timer.unref();
    this.lingering.set(sessionId, timer);
  }

  private release(sessionId: string): void {
    clearTimeout(this.lingering.get(sessionId));
    const was = this.holds(sessionId);
    this.lingering.delete(sessionId);
    this.held.delete(sessionId);
    if (was) for (const listener of this.holderListeners) listener(sessionId, false);
  }
}

/** One stored event as SSE text: undefined for the opening marker, 'end' for the end of a POST stream. */
function sseText(stream: string, e: StreamEvent, seqOf: (redisId: string) => string): string | undefined {
  const kind = e.payload[0];
  const id = eventId(stream, seqOf(e.id));
  if (kind === 'm') return `id: ${id}\nevent: message\ndata: ${e.payload.slice(1)}\n\n`;
  if (kind === 'p') return `id: ${id}\ndata: \n\n`;
  if (kind === 'e') return 'end';
  return undefined;
}
