/**
 * Calls waiting for their client's input, across replicas over Redis
 * pub/sub (runtime/rounds/round-peers.ts): each replica listens on its own
 * rounds channel. A resume is acknowledged at once by the holder (no
 * acknowledgment in time: the holder is gone, and the caller runs the call
 * again instead); then come the call's progress and its next turn.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../observability/logging/logger.js';
import type { ProgressHandler } from '../routing/caller.js';
import type { PeerOutcome, PeerResume, RoundPeers } from '../rounds/round-peers.js';
import type { RedisCluster } from './redis-cluster.js';

/** How long a holder has to acknowledge a resume before it is taken for gone. */
const ACK_TIMEOUT_MS = 2_000;

type RoundMessage =
  | { k: 'resume'; n: string; reply: string; r: PeerResume }
  | { k: 'cancel'; n: string }
  | { k: 'ack'; n: string }
  | { k: 'progress'; n: string; p: Parameters<ProgressHandler>[0] }
  | { k: 'outcome'; n: string; o: PeerOutcome };

/** What the holder does with a resume (runtime/rounds/stateless-rounds.ts). */
export type ResumeHandler = (request: PeerResume, signal: AbortSignal, onprogress: ProgressHandler) => Promise<PeerOutcome>;

interface Waiting {
  acked: boolean;
  onprogress?: ProgressHandler;
  settle(o: PeerOutcome): void;
}

export class RedisRoundPeers implements RoundPeers {
  readonly tag: string;
  private readonly waiting = new Map<string, Waiting>();
  /** Resumes this replica runs for others, by nonce: cancelled when the asking replica's client goes. */
  private readonly running = new Map<string, AbortController>();
  private handler?: ResumeHandler;

  constructor(
    private readonly cluster: RedisCluster,
    private readonly log: Logger,
  ) {
    this.tag = cluster.tag;
    cluster.bus.hold(this.channel(this.tag), (text) => this.hear(text));
  }

  /** What this replica does when another hands it a resume of a call it holds. */
  serve(handler: ResumeHandler): void {
    this.handler = handler;
  }

  resume(holder: string, request: PeerResume, signal: AbortSignal, onprogress?: ProgressHandler): Promise<PeerOutcome> {
    const n = randomUUID();
    return new Promise<PeerOutcome>((resolve) => {
      const done = (o: PeerOutcome) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', cancel);
        this.waiting.delete(n);
        resolve(o);
      };
      const cancel = () => this.send(holder, { k: 'cancel', n });
      const waiting: Waiting = { acked: false, onprogress, settle: done };
      const timer = setTimeout(() => {
        if (!waiting.acked) done({ unknown: true });
      }, ACK_TIMEOUT_MS).unref();
      this.waiting.set(n, waiting);
      signal.addEventListener('abort', cancel, { once: true });
      this.send(holder, { k: 'resume', n, reply: this.tag, r: request });
    });
  }

  private hear(text: string): void {
    let m: RoundMessage;
    try {
      m = JSON.parse(text) as RoundMessage;
    } catch {
      return;
    }
    switch (m.k) {
      case 'resume':
        return void this.run(m.n, m.reply, m.r);
      case 'cancel':
        this.running.get(m.n)?.abort('the client closed the repeat on another replica');
        return;
      case 'ack': {
        const w = this.waiting.get(m.n);
        if (w) w.acked = true;
        return;
      }
      case 'progress':
        this.waiting.get(m.n)?.onprogress?.(m.p);
        return;
      case 'outcome':
        this.waiting.get(m.n)?.settle(m.o);
        return;
    }
  }

  private async run(n: string, reply: string, request: PeerResume): Promise<void> {
    if (!this.handler) return this.send(reply, { k: 'outcome', n, o: { unknown: true } });
    const controller = new AbortController();
    this.running.set(n, controller);
    this.send(reply, { k: 'ack', n });
    try {
      const o = await this.handler(request, controller.signal, (p) => this.send(reply, { k: 'progress', n, p }));
      this.send(reply, { k: 'outcome', n, o });
    } catch (err) {
      this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'a resume for another replica failed');
      this.send(reply, { k: 'outcome', n, o: { error: { code: -32603, message: 'Internal error' } } });
    } finally {
      this.running.delete(n);
    }
  }

  private send(tag: string, m: RoundMessage): void {
    this.cluster.bus.publish(this.channel(tag), JSON.stringify(m));
  }

  private channel(tag: string): string {
    return this.cluster.keys.rounds(tag);
  }
}
