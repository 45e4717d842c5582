/** Exponential backoff with jitter: initial·2^(attempt-1), capped, ± jitter. */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  /** Fraction of the delay added or removed at random (0.2 = ±20%). */
  jitter: number;
}

export function backoffDelay(attempt: number, policy: BackoffPolicy, random = Math.random): number {
  const base = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.max(0, attempt - 1));
  const spread = base * policy.jitter * (random() * 2 - 1);
  return Math.max(1, Math.round(Math.min(policy.maxMs, base + spread)));
}

/**
 * Per-name exponential backoff, in the shape of client-go's rate limiter:
 * `when(name)` counts one more failure and says how long to wait before the
 * next try; `forget(name)` starts the name afresh. The work queue uses it for
 * reconciles that throw; the reconciler uses it for failures it records in
 * the status (a failed connect, a lost connection), so it can say there when
 * the next attempt is. Forgetting is the caller's decision: the reconciler
 * forgets a backend only once its connection has proven stable, so a backend
 * that dies right after every connect keeps backing off.
 */
export class BackoffLimiter {
  private readonly failuresByName = new Map<string, number>();

  constructor(
    private policy: BackoffPolicy,
    private readonly random: () => number = Math.random,
  ) {}

  setPolicy(policy: BackoffPolicy): void {
    this.policy = policy;
  }

  /** How long a connection must stay up before a later loss starts backoff afresh. */
  get stableAfterMs(): number {
    return this.policy.maxMs;
  }

  when(name: string): number {
    const failures = (this.failuresByName.get(name) ?? 0) + 1;
    this.failuresByName.set(name, failures);
    return backoffDelay(failures, this.policy, this.random);
  }

  failures(name: string): number {
    return this.failuresByName.get(name) ?? 0;
  }

  forget(name: string): void {
    this.failuresByName.delete(name);
  }
}
