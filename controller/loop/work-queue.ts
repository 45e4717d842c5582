/**
 * The controller's work queue, in the shape of client-go's: items are backend
 * names. Adding a name that is already waiting does nothing (dedupe); a name
 * is never handed to two workers at once (added while it is being processed,
 * it runs again right after); `addAfter` delays an add, the earliest
 * requested time winning. p-queue is the executor: it bounds how many names
 * are processed at once and how many start per second.
 *
 * Events only ever call `add`: what to do about a name is decided when it is
 * processed, from the state at that moment (level-triggered).
 */
import PQueue from 'p-queue';

export interface QueueLimits {
  concurrency: number;
  /** Names started per second at most. */
  ratePerSecond: number;
}

export class WorkQueue {
  private readonly waiting = new Set<string>();
  private readonly processing = new Set<string>();
  /** Added while processing: run again when done. */
  private readonly dirty = new Set<string>();
  private readonly delayed = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private executor: PQueue;
  /** Executors replaced by a rate change; drained on shutdown. */
  private readonly retired: PQueue[] = [];
  private limits: QueueLimits;
  private stopped = false;

  constructor(
    private readonly process: (name: string) => Promise<void>,
    limits: QueueLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.limits = limits;
    this.executor = executorFor(limits);
  }

  add(name: string): void {
    if (this.stopped || this.waiting.has(name)) return;
    if (this.processing.has(name)) {
      this.dirty.add(name);
      return;
    }
    this.waiting.add(name);
    void this.executor.add(() => this.run(name));
  }

  /** Adds the name after `ms` (at once for 0); a pending earlier time is kept. */
  addAfter(name: string, ms: number): void {
    if (this.stopped) return;
    if (ms <= 0) return this.add(name);
    const at = this.now() + ms;
    const pending = this.delayed.get(name);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(name);
      this.add(name);
    }, ms);
    timer.unref();
    this.delayed.set(name, { at, timer });
  }

  setLimits(limits: QueueLimits): void {
    if (limits.ratePerSecond !== this.limits.ratePerSecond) {
      // p-queue cannot change its rate in place: new work goes to a new executor, running work finishes in the old one.
      this.retired.push(this.executor);
      this.executor = executorFor(limits);
    }
    this.executor.concurrency = limits.concurrency;
    this.limits = limits;
  }

  /** Names waiting, delayed or being processed. */
  get depth(): number {
    return new Set([...this.waiting, ...this.processing, ...this.delayed.keys()]).size;
  }

  /** Takes no more work, forgets what waits, and resolves once the names being processed are done. */
  async shutdown(): Promise<void> {
    this.stopped = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.waiting.clear();
    this.dirty.clear();
    const executors = [...this.retired, this.executor];
    for (const e of executors) e.clear();
    await Promise.all(executors.map((e) => e.onIdle()));
  }

  private async run(name: string): Promise<void> {
    if (!this.waiting.delete(name)) return; // cleared by shutdown
    this.processing.add(name);
    try {
      await this.process(name);
    } finally {
      this.processing.delete(name);
      if (this.dirty.delete(name)) this.add(name);
    }
  }
}

function executorFor(limits: QueueLimits): PQueue {
  return new PQueue({ concurrency: limits.concurrency, intervalCap: limits.ratePerSecond, interval: 1000 });
}
