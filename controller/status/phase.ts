/**
 * The phase is never set: it is derived from the conditions (and whether the
 * gateway is shutting down) by this one pure function, so the two can never
 * disagree.
 *
 *   ShuttingDown  the gateway is stopping
 *   Ready         Ready=true, and the last health check passed (or none has run yet)
 *   Degraded      Ready=true, but HealthCheckFailed=true (slow answers)
 *   Initializing  Ready=false while a step toward it is in progress (connecting, building the image)
 *   Pending       Ready=false because nothing is asked for yet (not started, disabled, disconnected on purpose)
 *   Failed        Ready=false for any other reason (connect failed, connection lost, name conflict, ...)
 */
import type { Condition, Phase } from '../../schemas/records.js';
import type { ReadyReason } from '../../schemas/conditions.js';
import { getCondition } from './conditions.js';

/** Ready=false reasons meaning "a step toward Ready is in progress". */
export const PROGRESSING_REASONS: ReadonlySet<ReadyReason> = new Set<ReadyReason>(['Connecting', 'BuildingImage']);

/** Ready=false reasons meaning "not asked for (yet)": not failures. */
export const IDLE_REASONS: ReadonlySet<ReadyReason> = new Set<ReadyReason>(['Pending', 'Disabled', 'Disconnected']);

export function derivePhase(conditions: readonly Condition[], shuttingDown: boolean): Phase {
  if (shuttingDown) return 'ShuttingDown';
  const ready = getCondition(conditions, 'Ready');
  if (ready?.status) return getCondition(conditions, 'HealthCheckFailed')?.status ? 'Degraded' : 'Ready';
  const reason = (ready?.reason ?? 'Pending') as ReadyReason;
  if (PROGRESSING_REASONS.has(reason)) return 'Initializing';
  if (IDLE_REASONS.has(reason)) return 'Pending';
  return 'Failed';
}
