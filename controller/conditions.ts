/**
 * Kubernetes-style conditions: `last_transition` moves only when a
 * condition's status flips, so it tells how long the backend has been in its
 * current state even while reasons and messages are refreshed.
 */
import type { Condition, ConditionType } from '../schemas/records.js';

export function setCondition(conditions: Condition[], type: ConditionType, status: boolean, reason: string, message: string, now = new Date()): boolean {
  const existing = conditions.find((c) => c.type === type);
  if (!existing) {
    conditions.push({ type, status, reason, message, last_transition: now.toISOString() });
    return true;
  }
  const flipped = existing.status !== status;
  if (flipped) existing.last_transition = now.toISOString();
  existing.status = status;
  existing.reason = reason;
  existing.message = message;
  return flipped;
}

export function getCondition(conditions: Condition[], type: ConditionType): Condition | undefined {
  return conditions.find((c) => c.type === type);
}
