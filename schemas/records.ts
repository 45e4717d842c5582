/**
 * Records the controller keeps and the management API serves (spec 2.2, 2.5).
 * TypeBox types so the API can serialise responses from the same definitions.
 */
import { Type, type Static } from '@sinclair/typebox';

export const PHASES = ['Pending', 'Initializing', 'Ready', 'Degraded', 'Failed', 'ShuttingDown'] as const;
export type Phase = (typeof PHASES)[number];

/** Connection states shown in the backend record's `state`. */
export const CONNECTION_STATES = ['disconnected', 'connecting', 'connected', 'disconnecting'] as const;
export type ConnectionState = (typeof CONNECTION_STATES)[number];

export const ConditionSchema = Type.Object({
  type: Type.String(),
  status: Type.Boolean(),
  reason: Type.String(),
  message: Type.String(),
  last_transition: Type.String({ description: 'ISO 8601; changes only when `status` flips.' }),
});
export type Condition = Static<typeof ConditionSchema>;

export const HEALTH_STATUSES = ['unknown', 'healthy', 'degraded', 'unhealthy'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

/** The hardened container a stdio backend runs in. */
export const ContainerRefSchema = Type.Object({
  id: Type.String(),
  image: Type.String(),
  runtime: Type.String({ description: '`podman` or `docker`' }),
});
export type ContainerRef = Static<typeof ContainerRefSchema>;

/** A backend's circuit under the circuit_breaker plugin (docs/plugins.md). */
export const CIRCUIT_STATES = ['closed', 'open', 'half_open'] as const;
export type CircuitState = (typeof CIRCUIT_STATES)[number];

/** A name this backend exposes that another backend keeps (the conflict strategy). */
export const LostConflictSchema = Type.Object({
  kind: Type.Union([Type.Literal('tool'), Type.Literal('prompt'), Type.Literal('resource')]),
  name: Type.String({ description: 'The exposed name (a resource: its URI or URI template).' }),
  winner: Type.String({ description: 'The backend whose capability clients get under that name.' }),
});

export type LostConflict = Static<typeof LostConflictSchema>;

export const BackendRecordSchema = Type.Object({
  name: Type.String(),
  type: Type.String(),
  group: Type.String(),
  phase: Type.String(),
  state: Type.String(),
  error: Type.Union([Type.String(), Type.Null()]),
  protocol_version: Type.Union([Type.String(), Type.Null()], {
    description: 'The MCP revision the connection to the backend speaks (e.g. `2025-11-25`, `2026-07-28`); null while not connected.',
  }),
  capabilities: Type.Object({ tools: Type.Integer(), resources: Type.Integer(), prompts: Type.Integer() }),
  quarantined_tools: Type.Integer({ description: 'Tools held back from clients until an operator approves their definitions (docs/tool-pinning.md).' }),
  conflicts: Type.Array(LostConflictSchema, {
    description:
      'Names of this backend that another backend keeps, each with the winner: hidden under `first-wins` or `priority`, the whole backend left out under `error`. Empty when it lost none.',
  }),
  health: Type.Object({
    status: Type.String(),
    last_check: Type.Union([Type.String(), Type.Null()]),
    latency_ms: Type.Union([Type.Number(), Type.Null()]),
  }),
  conditions: Type.Array(ConditionSchema),
  labels: Type.Record(Type.String(), Type.String()),
  container: Type.Union([ContainerRefSchema, Type.Null()], {
    description: 'The hardened container a stdio backend runs in; null for a bare process or an HTTP backend.',
  }),
  circuit: Type.Union([...CIRCUIT_STATES.map((s) => Type.Literal(s)), Type.Null()], {
    description: 'Its circuit under the circuit_breaker plugin; null when no circuit breaker is configured.',
  }),
});
export type BackendRecord = Static<typeof BackendRecordSchema>;

export const SEVERITIES = ['debug', 'info', 'warning', 'error'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Every `stage` an event can carry; documented (with severities) in docs/controller.md. */
export const STAGES = [
  'registered',
  'connecting',
  'connected',
  'disconnected',
  'removed',
  'error',
  'retry_scheduled',
  'phase_changed',
  'health_degraded',
  'health_failed',
  'health_recovered',
  'conflict',
  'reconnect',
  'reload',
  'reload_failed',
  'shutdown',
  'catalog',
  'image_built',
  'container_fallback',
  'reauthenticated',
  'reauth_failed',
  'circuit_opened',
  'circuit_closed',
  'plugin_timed_out',
  'authorization_required',
  'token_refused',
  'store_unavailable',
  'store_degraded',
  'store_recovered',
  'tool_definition_changed',
  'tool_quarantined',
  'tool_flagged',
  'tool_approved',
  'input_timed_out',
] as const;
export type Stage = (typeof STAGES)[number];

export const EventRecordSchema = Type.Object({
  id: Type.String(),
  timestamp: Type.String(),
  stage: Type.String(),
  message: Type.String(),
  severity: Type.String(),
  backend: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown()),
});
export type EventRecord = Static<typeof EventRecordSchema>;
