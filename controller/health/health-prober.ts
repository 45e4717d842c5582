/**
 * Periodic MCP ping of every connected backend, like a kubelet's probes: it
 * classifies each answer (healthy, degraded, unhealthy), keeps the latest
 * result per backend, and asks for the backend to be reconciled. It never
 * changes status itself: the reconciler reads the result and records it
 * (spec 3.1 maps it to a phase).
 */
import type { HealthStatus } from '../../schemas/records.js';

export interface HealthPolicy {
  intervalMs: number;
  timeoutMs: number;
  degradedLatencyMs: number;
}

export interface ProbeResult {
  status: Exclude<HealthStatus, 'unknown'>;
  latencyMs: number | null;
  checkedAt: Date;
  error?: string;
  /** The latency above which the answer counted as degraded (the policy when it was taken). */
  degradedAboveMs: number;
  /** The connection that was probed: a result for a connection since replaced says nothing. */
  target: object;
}

/** What can be probed: an MCP ping with a timeout, resolving with the round trip in ms. */
export interface Pingable {
  ping(timeoutMs: number): Promise<number>;
}

export class HealthProber {
  private timer?: NodeJS.Timeout;
  private readonly results = new Map<string, ProbeResult>();
  /** Probes still out; a backend is not probed again until its answer (or timeout) arrives. */
  private readonly inFlight = new Set<string>();

  constructor(
    /** The connections to probe now. */
    private readonly targets: () => Iterable<readonly [name: string, conn: Pingable]>,
    /** Told after each result: the reconciler records it. */
    private readonly onResult: (name: string) => void,
    private policy: HealthPolicy,
  ) {}

  start(): void {
    this.stop();
    this.timer = setInterval(() => void this.probeAll(), this.policy.intervalMs);
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

  /** The latest result for a backend, if any. */
  latest(name: string): ProbeResult | undefined {
    return this.results.get(name);
  }

  forget(name: string): void {
    this.results.delete(name);
  }

  /**
   * One round over all targets. A backend whose previous probe is still out is
   * skipped, the others are not: one hanging backend does not delay the rest.
   */
  async probeAll(): Promise<void> {
    await Promise.all([...this.targets()].map(([name, conn]) => this.probe(name, conn)));
  }

  async probe(name: string, conn: Pingable): Promise<void> {
    if (this.inFlight.has(name)) return;
    this.inFlight.add(name);
    let result: ProbeResult;
    try {
      const latency = await conn.ping(this.policy.timeoutMs);
      result = {
        status: latency > this.policy.degradedLatencyMs ? 'degraded' : 'healthy',
        latencyMs: Math.round(latency * 100) / 100,
        checkedAt: new Date(),
        degradedAboveMs: this.policy.degradedLatencyMs,
        target: conn,
      };
    } catch (err) {
      result = {
        status: 'unhealthy',
        latencyMs: null,
        checkedAt: new Date(),
        error: (err as Error).message,
        degradedAboveMs: this.policy.degradedLatencyMs,
        target: conn,
      };
    } finally {
      this.inFlight.delete(name);
    }
    this.results.set(name, result);
    this.onResult(name);
  }
}
