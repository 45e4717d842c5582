/**
 * Periodic MCP ping of every connected backend. It classifies each result
 * (healthy, degraded, unhealthy) and hands it to the controller, which maps it
 * to a phase (spec 3.1). It never changes state itself.
 */
import type { HealthStatus } from '../schemas/records.js';
import type { BackendState } from './backend-state.js';

export interface HealthPolicy {
  intervalMs: number;
  timeoutMs: number;
  degradedLatencyMs: number;
}

export interface HealthResult {
  status: Exclude<HealthStatus, 'unknown'>;
  latencyMs: number | null;
  checkedAt: Date;
  error?: string;
}

export type HealthSink = (st: BackendState, result: HealthResult) => void;

export class HealthMonitor {
  private timer?: NodeJS.Timeout;
  /** Backends whose ping is still out; each is skipped until its own answer (or timeout) arrives. */
  private readonly inFlight = new Set<BackendState>();

  constructor(
    private readonly states: () => Iterable<BackendState>,
    private readonly sink: HealthSink,
    private policy: HealthPolicy,
  ) {}

  start(): void {
    this.stop();
    this.timer = setInterval(() => void this.checkAll(), this.policy.intervalMs);
    this.timer.unref();
  }

  setPolicy(policy: HealthPolicy): void {
    const restart = this.timer !== undefined && policy.intervalMs !== this.policy.intervalMs;
    this.policy = policy;
    if (restart) this.start();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * One round over all connected backends. A backend whose previous ping is
   * still out is skipped, the others are not: one slow or hanging backend
   * does not delay the checks of the rest.
   */
  async checkAll(): Promise<void> {
    const targets = [...this.states()].filter((st) => st.conn && !st.busy && !this.inFlight.has(st));
    await Promise.all(targets.map((st) => this.check(st)));
  }

  async check(st: BackendState): Promise<void> {
    const conn = st.conn;
    if (!conn || this.inFlight.has(st)) return;
    this.inFlight.add(st);
    let result: HealthResult;
    try {
      const latency = await conn.ping(this.policy.timeoutMs);
      result = {
        status: latency > this.policy.degradedLatencyMs ? 'degraded' : 'healthy',
        latencyMs: Math.round(latency * 100) / 100,
        checkedAt: new Date(),
      };
    } catch (err) {
      result = { status: 'unhealthy', latencyMs: null, checkedAt: new Date(), error: (err as Error).message };
    } finally {
      this.inFlight.delete(st);
    }
    // The connection may have been replaced while the ping was out; a stale result says nothing.
    if (st.conn === conn) this.sink(st, result);
  }
}
