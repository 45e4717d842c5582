/** allow/deny glob filtering of capability names, compiled once per backend spec. */
import picomatch from 'picomatch';
import type { FilterRuleSpec } from '../../schemas/config.js';

/**
 * Whether a capability passes. A capability known by several names (a
 * resource: its URI and its name) passes when any of them is allowed and none
 * is denied: deny wins.
 */
export type NameFilter = (...names: string[]) => boolean;

const allowAll: NameFilter = () => true;

export function compileFilter(rule: FilterRuleSpec | undefined): NameFilter {
  if (!rule || (!rule.allow?.length && !rule.deny?.length)) return allowAll;
  // `dot: true` so a pattern like `*` also matches names beginning with a dot; names are not paths.
  const allow = rule.allow?.length ? picomatch(rule.allow, { dot: true }) : () => true;
  const deny = rule.deny?.length ? picomatch(rule.deny, { dot: true }) : () => false;
  return (...names) => names.some((n) => allow(n)) && !names.some((n) => deny(n));
}
