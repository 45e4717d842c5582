/**
 * Observed state of one backend: phase, connection state, conditions, health
 * and the retry bookkeeping of the reconcile loop. Methods only record facts;
 * the reconciler decides what to do about them.
 */
import type { BackendSpec } from '../schemas/config.js';
import type { BackendRecord, Condition, ConnectionState, HealthStatus, Phase } from '../schemas/records.js';
import type { BackendConnection } from '../runtime/backends/backend-connection.js';
import { setCondition } from './conditions.js';

export class BackendState {
  phase: Phase = 'Pending';
  state: ConnectionState = 'disconnected';
  error: string | null = null;
  conditions: Condition[] = [];
  health: { status: HealthStatus; last_check: string | null; latency_ms: number | null } = {
    status: 'unknown',
    last_check: null,
    latency_ms: null,
  };
  /** Live connection, once connected (serving or held back by a name conflict). */
  conn?: BackendConnection;
  /** A connection still being established (closed on shutdown so a hanging connect cannot hold it up). */
  connecting?: BackendConnection;
  /** The spec `conn` was made with. */
  connectedSpec?: BackendSpec;
  /** Consecutive failed attempts, for backoff. */
  attempts = 0;
  nextAttemptAt = 0;
  /** When the current connection was established (ms epoch); decides whether a loss resets backoff. */
  connectedAt?: number;
  retryTimer?: NodeJS.Timeout;
  /** A manual reconnect was asked for. */
  forceReconnect = false;
  /** An action (connect/disconnect) is running; a reconcile meanwhile sets `dirty`. */
  busy = false;
  dirty = false;
  /** Left out of the registry by the `error` conflict strategy. */
  conflict: string | null = null;

  constructor(
    readonly name: string,
    public spec: BackendSpec,
  ) {
    setCondition(this.conditions, 'Ready', false, 'Pending', 'not started yet');
    setCondition(this.conditions, 'HealthCheckFailed', false, 'NotChecked', 'no health check has run yet');
  }

  toRecord(): BackendRecord {
    const catalog = this.conn && !this.conflict ? this.conn.catalog : undefined;
    return {
      name: this.name,
      type: this.spec.type,
      group: this.spec.group ?? 'default',
      phase: this.phase,
      state: this.state,
      error: this.error,
      capabilities: {
        tools: catalog?.tools.length ?? 0,
        resources: catalog?.resources.length ?? 0,
        prompts: catalog?.prompts.length ?? 0,
      },
      health: { ...this.health },
      conditions: this.conditions.map((c) => ({ ...c })),
      labels: { ...(this.spec.labels ?? {}) },
    };
  }
}
