/**
 * Status transitions as data: each function turns one observation of a
 * backend (a connect attempt, a probe result, a lost connection, a container
 * step) into the patch of its record and the events that tell people about
 * it. Pure: nothing here writes; the status writer applies a transition
 * (patch first, then the events, in order), and the reconciler only decides
 * which one happened.
 */
import type { BackendSpec } from '../../schemas/config.js';
import type { ConditionUpdate, ContainerFailure, ReadyReason } from '../../schemas/conditions.js';
import type { ContainerRef } from '../../schemas/records.js';
import type { EventInput } from '../event-bus.js';
import type { ProbeResult } from '../health/health-prober.js';
import type { StatusPatch, Transition } from './status-store.js';

export type { Transition };

/** When a failed backend is tried again (the per-name backoff's answer). */
export interface Retry {
  delayMs: number;
  /** ms epoch */
  at: number;
  /** The number of the next attempt. */
  attempt: number;
}

/** The parts of a backend's record a transition depends on. */
export interface Observed {
  /** It ran in a container (its end must say the container stopped). */
  inContainer: boolean;
}

export function registered(name: string, spec: BackendSpec): Transition {
  return { events: [{ stage: 'registered', message: `backend ${name} (${spec.type}) registered` }] };
}

export function removed(name: string): Transition {
  return { events: [{ stage: 'removed', message: `backend ${name} removed` }] };
}

export function specChanged(spec: BackendSpec): Transition {
  return { patch: { spec } };
}

export function disabled(): Transition {
  return {
    patch: { state: 'disconnected', error: null, conditions: [ready(false, 'Disabled', 'disabled in config')] },
    why: 'disabled in config',
  };
}

// --- connecting ---

export function connecting(name: string, attempt: number): Transition {
  return {
    patch: { state: 'connecting', error: null, conditions: [ready(false, 'Connecting', 'connection in progress')] },
    why: 'connecting',
    events: [{ stage: 'connecting', message: `connecting to ${name} (attempt ${attempt})` }],
  };
}

export interface ConnectedFacts {
  connectMs: number;
  pid: number | undefined;
  container: ContainerRef | undefined;
  oauth: boolean;
  /** The manual reconnect request this connect answered. */
  answering: number;
}

export function connected(name: string, f: ConnectedFacts): Transition {
  const conditions: ConditionUpdate[] = [];
  if (f.container) {
    conditions.push({ type: 'ContainerRunning', status: true, reason: 'Running', message: `${f.container.runtime} container ${f.container.id.slice(0, 12)}` });
  }
  if (f.oauth) conditions.push({ type: 'Authenticated', status: true, reason: 'Authorized', message: 'the backend accepted the access token' });
  conditions.push(ready(true, 'Connected', `connected in ${f.connectMs} ms`));
  return {
    patch: { state: 'connected', error: null, reconnectsAnswered: f.answering, ...(f.container ? { container: f.container } : {}), conditions },
    why: 'connected',
    events: [{ stage: 'connected', message: `${name} connected in ${f.connectMs} ms`, details: { connect_ms: f.connectMs, pid: f.pid ?? null } }],
  };
}

/** An attempt whose settings desired state has since replaced: not a failure of the new ones. */
export function attemptSuperseded(error?: string): Transition {
  return { patch: error === undefined ? { state: 'disconnected' } : { state: 'disconnected', error } };
}

/** A failed attempt (connect, image, runtime), retried after the backoff. */
export function attemptFailed(name: string, error: string, reason: ReadyReason, answering: number, retry: Retry): Transition {
  return {
    patch: { state: 'disconnected', error, reconnectsAnswered: answering, conditions: [ready(false, reason, retryMessage(error, retry))] },
    why: error,
    events: [
      { stage: 'error', severity: 'error', message: `${name} failed to connect: ${error}`, details: { attempt: retry.attempt - 1 } },
      retryScheduled(name, retry),
    ],
  };
}

/**
 * The backend needs the user to authorize the gateway (OAuth): parked, not
 * retried, until `gateway-client reauth` completes. `lost` is set when it
 * was connected and lost its authorization.
 */
export function authorizationRequired(name: string, message: string, answering: number, lost?: string): Transition {
  const events: Transition['events'] = [];
  if (lost !== undefined) events.push({ stage: 'disconnected', severity: 'error', message: `${name} lost its authorization: ${lost}` });
  events.push({ stage: 'error', severity: 'error', message: `${name}: ${message}` });
  return {
    patch: {
      state: 'disconnected',
      error: message,
      reconnectsAnswered: answering,
      conditions: [{ type: 'Authenticated', status: false, reason: 'AuthorizationRequired', message }, ready(false, 'AuthorizationRequired', message)],
    },
    why: 'authorization required',
    events,
  };
}

// --- connected ---

/**
 * A call needed a scope the token lacks (OAuth step-up): the backend stays
 * Ready for what the token allows, and the operator learns that a consent
 * is needed and with which command.
 */
export function insufficientScope(name: string, scope: string, message: string): Transition {
  return {
    patch: { conditions: [{ type: 'Authenticated', status: false, reason: 'InsufficientScope', message }] },
    events: [{ stage: 'authorization_required', severity: 'warning', message: `${name}: ${message}`, details: { scope } }],
  };
}

export function reconnectForNewSettings(name: string): Transition {
  return { events: [{ stage: 'reconnect', message: `${name} reconnects: its connection settings changed`, details: { trigger: 'config' } }] };
}

export function disconnecting(): Transition {
  return { patch: { state: 'disconnecting' } };
}

/** Disconnected on purpose (config change, manual reconnect, `enabled: false`, removal). */
export function disconnected(name: string, why: string, reason: 'Disconnected' | 'Disabled', seen: Observed): Transition {
  const gone = containerGone(seen, 'Stopped', why);
  return {
    patch: {
      state: 'disconnected',
      error: null,
      health: { status: 'unknown', latency_ms: null },
      ...gone.patch,
      conditions: [...gone.conditions, ready(false, reason, why)],
    },
    why,
    events: [{ stage: 'disconnected', message: `${name} disconnected: ${why}` }],
  };
}

/** The connection ended by itself (process exit, transport loss, failed health check). */
export function connectionLost(name: string, reason: string, retry: Retry, seen: Observed & { failedCheck: boolean }): Transition {
  const gone = containerGone(seen, 'Exited', reason);
  return {
    patch: {
      state: 'disconnected',
      error: reason,
      // Nothing is known about a connection that is gone, unless a failed check is what ended it.
      health: seen.failedCheck ? {} : { status: 'unknown', latency_ms: null },
      ...gone.patch,
      conditions: [...gone.conditions, ready(false, 'ConnectionLost', retryMessage(reason, retry))],
    },
    why: reason,
    events: [{ stage: 'disconnected', severity: 'error', message: `${name} lost its connection: ${reason}` }, retryScheduled(name, retry)],
  };
}

export function nameConflict(name: string, verdict: string): Transition {
  return {
    patch: { error: verdict, conditions: [ready(false, 'NameConflict', verdict)] },
    why: verdict,
    events: [{ stage: 'conflict', severity: 'error', message: `${name} left out: ${verdict}` }],
  };
}

export function conflictResolved(): Transition {
  return { patch: { error: null, conditions: [ready(true, 'Connected', 'conflict resolved')] }, why: 'name conflict resolved' };
}

/** The capabilities a backend offers, once its catalog has settled. */
export function catalogSettled(name: string, counts: { tools: number; resources: number; prompts: number }): Transition {
  const text = `${counts.tools} tools, ${counts.resources} resources, ${counts.prompts} prompts`;
  return { events: [{ stage: 'catalog', message: `${name}: ${text}`, details: { ...counts } }] };
}

// --- health ---

function healthOf(probe: ProbeResult): StatusPatch['health'] {
  return { status: probe.status, last_check: probe.checkedAt.toISOString(), latency_ms: probe.latencyMs };
}

export function healthFailed(name: string, probe: ProbeResult): Transition {
  const error = probe.error ?? 'ping failed';
  return {
    patch: {
      health: { ...healthOf(probe), latency_ms: null },
      conditions: [{ type: 'HealthCheckFailed', status: true, reason: 'PingFailed', message: error }],
    },
    events: [{ stage: 'health_failed', severity: 'error', message: `${name} failed its health check: ${probe.error}` }],
  };
}

/** A result recorded without a verdict (the backend is held back by a name conflict; health does not change that). */
export function healthNoted(probe: ProbeResult): Transition {
  return { patch: { health: healthOf(probe) } };
}

export function healthPassed(name: string, probe: ProbeResult, wasDegraded: boolean): Transition {
  return {
    patch: {
      health: healthOf(probe),
      conditions: [
        { type: 'HealthCheckFailed', status: false, reason: 'HealthCheckPassed', message: `ping answered in ${probe.latencyMs} ms` },
        ready(true, 'Connected', 'healthy'),
      ],
    },
    why: 'health check passed',
    events: wasDegraded ? [{ stage: 'health_recovered', message: `${name} is healthy again (${probe.latencyMs} ms)` }] : [],
  };
}

export function healthSlow(name: string, probe: ProbeResult, wasDegraded: boolean): Transition {
  const ms = probe.latencyMs;
  return {
    patch: {
      health: healthOf(probe),
      conditions: [
        { type: 'HealthCheckFailed', status: true, reason: 'SlowResponse', message: `ping took ${ms} ms (degraded above ${probe.degradedAboveMs} ms)` },
        ready(true, 'Degraded', 'serving, but slow'),
      ],
    },
    why: 'slow health check',
    events: wasDegraded ? [] : [{ stage: 'health_degraded', severity: 'warning', message: `${name} is slow: ping ${ms} ms > ${probe.degradedAboveMs} ms` }],
  };
}

// --- containers ---

export function imagePreparing(name: string): Transition {
  return {
    patch: {
      conditions: [
        { type: 'ImageReady', status: false, reason: 'Preparing', message: `making sure the image for ${name} exists (built when missing)` },
        ready(false, 'BuildingImage', 'preparing the container image'),
      ],
    },
    why: 'preparing the image',
  };
}

export function imageReady(name: string, image: string, built: boolean): Transition {
  return {
    patch: { conditions: [{ type: 'ImageReady', status: true, reason: built ? 'Built' : 'Present', message: image }] },
    events: built ? [{ stage: 'image_built', message: `${name}: image ${image} built` }] : [],
  };
}

export function imageFailed(reason: ContainerFailure, message: string): Transition {
  return { patch: { conditions: [{ type: 'ImageReady', status: false, reason, message }] } };
}

/** A stdio backend that wants a container runs as a bare process; `announce` publishes it (a fallback worth a warning). */
export function bareProcess(name: string, why: string, announce: boolean): Transition {
  return {
    patch: { container: null, conditions: [{ type: 'ContainerRunning', status: false, reason: 'BareProcess', message: why }] },
    events: announce ? [{ stage: 'container_fallback', severity: 'warning', message: `${name}: ${why}` }] : [],
  };
}

// --- shutdown ---

export function shuttingDown(connected: boolean): Transition {
  return { patch: { shuttingDown: true, state: connected ? 'disconnecting' : 'disconnected' }, why: 'gateway shutdown' };
}

export function closed(): Transition {
  return { patch: { state: 'disconnected' } };
}

// --- parts ---

function ready(status: boolean, reason: ReadyReason, message: string): ConditionUpdate {
  return { type: 'Ready', status, reason, message };
}

function retryMessage(reason: string, retry: Retry): string {
  return `${reason}; next attempt at ${new Date(retry.at).toISOString()} (in ${retry.delayMs} ms, attempt ${retry.attempt})`;
}

function retryScheduled(name: string, retry: Retry): Omit<EventInput, 'backend'> {
  const at = new Date(retry.at).toISOString();
  return {
    stage: 'retry_scheduled',
    severity: 'warning',
    message: `${name}: retry in ${retry.delayMs} ms`,
    details: { delay_ms: retry.delayMs, next_attempt_at: at, attempt: retry.attempt },
  };
}

/** The patch for a container that stopped (nothing when the backend ran in none). */
function containerGone(seen: Observed, reason: 'Exited' | 'Stopped', message: string): { patch: StatusPatch; conditions: ConditionUpdate[] } {
  if (!seen.inContainer) return { patch: {}, conditions: [] };
  return { patch: { container: null }, conditions: [{ type: 'ContainerRunning', status: false, reason, message }] };
}
