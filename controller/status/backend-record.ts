/** The backend record of `GET /backends` (spec 2.2), from a status and the backend's live connection. */
import type { BackendRecord, CircuitState, LostConflict } from '../../schemas/records.js';
import type { BackendStatus } from './status-store.js';
import { getCondition } from './conditions.js';

export interface CatalogCounts {
  catalog: { tools: unknown[]; resources: unknown[]; prompts: unknown[] };
  /** The MCP revision the connection speaks, once connected. */
  readonly protocolVersion?: string;
}

/** What the record tells beyond the status and the connection. */
export interface RecordExtras {
  /** How many of its tools the route table holds back (docs/tool-pinning.md). */
  quarantinedTools?: number;
  /** The backend's circuit under the circuit_breaker plugin, null without one. */
  circuit?: CircuitState | null;
  /** The names it lost to another backend, with the winner of each. */
  conflicts?: LostConflict[];
}

export function toBackendRecord(status: BackendStatus, conn: CatalogCounts | undefined, extras: RecordExtras = {}): BackendRecord {
  // A backend held out by a name conflict serves nothing, so it counts nothing.
  const serving = conn && getCondition(status.conditions, 'Ready')?.reason !== 'NameConflict' ? conn.catalog : undefined;
  return {
    name: status.name,
    type: status.spec.type,
    group: status.spec.group ?? 'default',
    phase: status.phase,
    state: status.state,
    error: status.error,
    protocol_version: conn?.protocolVersion ?? null,
    capabilities: {
      tools: serving?.tools.length ?? 0,
      resources: serving?.resources.length ?? 0,
      prompts: serving?.prompts.length ?? 0,
    },
    quarantined_tools: extras.quarantinedTools ?? 0,
    conflicts: (extras.conflicts ?? []).map((c) => ({ ...c })),
    health: { ...status.health },
    conditions: status.conditions.map((c) => ({ ...c })),
    labels: { ...(status.spec.labels ?? {}) },
    container: status.container && { ...status.container },
    circuit: extras.circuit ?? null,
  };
}
