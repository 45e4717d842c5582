/**
 * Observed state of every backend, with exactly one writer.
 *
 * `createStatusStore()` hands out the read-only view (every module may hold
 * it) and the one `StatusWriter` (only the reconciler gets it), so a status
 * write anywhere else does not even compile. What it writes are transitions
 * (./transitions.ts): a patch and the events that go with it. Records are
 * frozen: a reader can keep one without seeing it change. The phase is
 * derived from the conditions on every write (./phase.ts), and a phase change
 * is published as a `phase_changed` event.
 */
import type { BackendSpec } from '../../schemas/config.js';
import type { Condition, ConnectionState, ContainerRef, HealthStatus, Phase, Severity } from '../../schemas/records.js';
import type { EventBus, EventInput } from '../event-bus.js';
import type { ConditionUpdate } from '../../schemas/conditions.js';
import { withCondition } from './conditions.js';
import { derivePhase } from './phase.js';

export interface HealthView {
  status: HealthStatus;
  last_check: string | null;
  latency_ms: number | null;
}

export interface BackendStatus {
  readonly name: string;
  /** The desired spec this status was last reconciled against (type, group, labels come from it). */
  readonly spec: BackendSpec;
  readonly phase: Phase;
  readonly state: ConnectionState;
  readonly error: string | null;
  readonly conditions: readonly Condition[];
  readonly health: Readonly<HealthView>;
  readonly shuttingDown: boolean;
  /** The last manual reconnect request (see DesiredState) a connect attempt has answered. */
  readonly reconnectsAnswered: number;
  /** The hardened container the backend runs in, once started; null for a process or an HTTP backend. */
  readonly container: ContainerRef | null;
}

export interface StatusView {
  get(name: string): BackendStatus | undefined;
  /** Every backend with a status, in the order they were first seen (config order). */
  list(): BackendStatus[];
  /** Called after every write, with the backend's name. */
  onChange(listener: (name: string) => void): () => void;
}

export interface StatusPatch {
  spec?: BackendSpec;
  state?: ConnectionState;
  error?: string | null;
  health?: Partial<HealthView>;
  shuttingDown?: boolean;
  reconnectsAnswered?: number;
  container?: ContainerRef | null;
  conditions?: readonly ConditionUpdate[];
}

/**
 * One observation's effect on a record: the patch and the events that tell
 * people about it (./transitions.ts makes them; only the writer applies them).
 */
export interface Transition {
  patch?: StatusPatch;
  /** Explains a phase change the patch causes, in its `phase_changed` event. */
  why?: string;
  /** Published after the patch, in order; each is about the transition's backend. */
  events?: Array<Omit<EventInput, 'backend'>>;
}

export interface StatusWriter {
  /** Records a backend seen for the first time: Pending, not started. */
  create(name: string, spec: BackendSpec): BackendStatus;
  /** Applies a transition: its patch (a phase change is published with its `why`), then its events. */
  apply(name: string, transition: Transition): BackendStatus;
  /** Forgets a backend; the transition's events (its removal) are published after. */
  remove(name: string, transition?: Transition): void;
}

const PHASE_SEVERITY: Partial<Record<Phase, Severity>> = { Failed: 'error', Degraded: 'warning' };

export function createStatusStore(events: EventBus): { view: StatusView; writer: StatusWriter } {
  const byName = new Map<string, BackendStatus>();
  const listeners = new Set<(name: string) => void>();
  const changed = (name: string) => {
    for (const listener of listeners) listener(name);
  };

  const view: StatusView = {
    get: (name) => byName.get(name),
    list: () => [...byName.values()],
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };

  const writer: StatusWriter = {
    create(name, spec) {
      const initial: ConditionUpdate[] = [
        { type: 'Ready', status: false, reason: 'Pending', message: 'not started yet' },
        { type: 'HealthCheckFailed', status: false, reason: 'NotChecked', message: 'no health check has run yet' },
      ];
      const conditions = initial.reduce<Condition[]>((list, c) => withCondition(list, c), []);
      const status: BackendStatus = Object.freeze({
        name,
        spec,
        phase: derivePhase(conditions, false),
        state: 'disconnected',
        error: null,
        conditions: Object.freeze(conditions),
        health: Object.freeze({ status: 'unknown', last_check: null, latency_ms: null }),
        shuttingDown: false,
        reconnectsAnswered: 0,
        container: null,
      } satisfies BackendStatus);
      byName.set(name, status);
      changed(name);
      return status;
    },

    apply(name, { patch, why, events: published = [] }) {
      const after = patch ? update(name, patch, why) : byName.get(name);
      if (!after) throw new Error(`no status for backend ${name}`);
      for (const e of published) events.emit({ ...e, backend: name });
      return after;
    },

    remove(name, transition) {
      if (byName.delete(name)) changed(name);
      for (const e of transition?.events ?? []) events.emit({ ...e, backend: name });
    },
  };

  function update(name: string, patch: StatusPatch, why: string | undefined): BackendStatus {
    const before = byName.get(name);
    if (!before) throw new Error(`no status for backend ${name}`);
    const now = new Date();
    const conditions = (patch.conditions ?? []).reduce<readonly Condition[]>((list, c) => withCondition(list, c, now), before.conditions);
    const shuttingDown = patch.shuttingDown ?? before.shuttingDown;
    const after: BackendStatus = Object.freeze({
      name,
      spec: patch.spec ?? before.spec,
      phase: derivePhase(conditions, shuttingDown),
      state: patch.state ?? before.state,
      error: patch.error === undefined ? before.error : patch.error,
      conditions: Object.freeze([...conditions]),
      health: patch.health ? Object.freeze({ ...before.health, ...patch.health }) : before.health,
      shuttingDown,
      reconnectsAnswered: patch.reconnectsAnswered ?? before.reconnectsAnswered,
      container: patch.container === undefined ? before.container : patch.container && Object.freeze({ ...patch.container }),
    });
    byName.set(name, after);
    if (after.phase !== before.phase) {
      events.emit({
        stage: 'phase_changed',
        backend: name,
        severity: PHASE_SEVERITY[after.phase] ?? 'info',
        message: `${name}: ${before.phase} -> ${after.phase}${why ? ` (${why})` : ''}`,
        details: { from: before.phase, to: after.phase },
      });
    }
    changed(name);
    return after;
  }

  return { view, writer };
}
