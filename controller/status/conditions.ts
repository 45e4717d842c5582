/**
 * Kubernetes-style conditions. Pure: a write returns a new list.
 * `last_transition` moves only when a condition's status flips, so it tells
 * how long the backend has been in its current state even while reasons and
 * messages are refreshed.
 */
import type { Condition } from '../../schemas/records.js';
import type { ConditionType, ConditionUpdate } from '../../schemas/conditions.js';

export function withCondition(conditions: readonly Condition[], update: ConditionUpdate, now = new Date()): Condition[] {
  const existing = conditions.find((c) => c.type === update.type);
  if (!existing) return [...conditions, { ...update, last_transition: now.toISOString() }];
  const last_transition = existing.status !== update.status ? now.toISOString() : existing.last_transition;
  return conditions.map((c) => (c === existing ? { ...update, last_transition } : c));
}

export function getCondition(conditions: readonly Condition[], type: ConditionType): Condition | undefined {
  return conditions.find((c) => c.type === type);
}
