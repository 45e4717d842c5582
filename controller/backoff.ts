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
