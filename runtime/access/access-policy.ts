/**
 * The policies of `authorization`, compiled once per config: checked in
 * order, the first whose roles and resources both match, and whose `when`
 * (if any) holds, decides; when none does, `default_effect` applies. A
 * policy's roles match a caller holding any of them; `*` matches every
 * caller, even one with no roles.
 *
 * A decision comes in two steps so the first can be cached: which policies
 * can decide for a role set on a capability (those that match it up to the
 * first one without `when`), then, on each call, their `when`s in order.
 * Without any `when` the second step is nothing.
 *
 * A `when` that fails to evaluate (an argument it reads is missing, a value
 * has another type) never lets a call through: a deny policy then applies,
 * an allow policy does not.
 */
import type { AccessDecision, AuthorizationSpec, PolicyEffect } from '../../schemas/access-config.js';
import { compileResourceGlobs, type NameMatcher } from './resource-glob.js';
import { compileCondition, type PolicyCondition } from './policy-condition.js';
import type { FactBindings, FactName } from './condition-facts.js';

interface CompiledPolicy {
  effect: PolicyEffect;
  anyCaller: boolean;
  roles: ReadonlySet<string>;
  matches: NameMatcher;
  when?: PolicyCondition;
  decision: AccessDecision;
}

/** The policies that may decide, in order: each conditional one, then the decision when none of their `when`s holds. */
export interface Candidates {
  readonly conditional: readonly number[];
  readonly otherwise: AccessDecision;
}

/** How one `when` came out, for POST /authorization/check. */
export interface ConditionStep {
  policyIndex: number;
  outcome: 'true' | 'false' | 'error' | 'unknown';
  error?: string;
}

export class AccessPolicy {
  private readonly policies: CompiledPolicy[];
  private readonly fallback: AccessDecision;
  /** Whether some `when` reads this fact: a list then depends on it. */
  readonly conditionsRead: ReadonlySet<FactName>;

  constructor(spec: Pick<AuthorizationSpec, 'default_effect' | 'policies'>) {
    this.policies = spec.policies.map((p, i) => ({
      effect: p.effect,
      anyCaller: p.roles.includes('*'),
      roles: new Set(p.roles),
      matches: compileResourceGlobs(p.resources),
      ...(p.when === undefined ? {} : { when: compileCondition(p.when) }),
      decision: Object.freeze({ allowed: p.effect === 'allow', policyIndex: i, effect: p.effect }),
    }));
    this.fallback = Object.freeze({ allowed: spec.default_effect === 'allow', policyIndex: null, effect: spec.default_effect });
    this.conditionsRead = new Set(this.policies.flatMap((p) => [...(p.when?.reads ?? [])]));
  }

  /** The first step, for a caller with `roles` on a capability known by `names` (./resource-names.ts). */
  candidates(roles: readonly string[], names: readonly string[]): Candidates {
    const conditional: number[] = [];
    for (let i = 0; i < this.policies.length; i++) {
      const p = this.policies[i];
      if (!p.anyCaller && !roles.some((r) => p.roles.has(r))) continue;
      if (!names.some((n) => p.matches(n))) continue;
      if (p.when === undefined) return { conditional, otherwise: p.decision };
      conditional.push(i);
    }
    return { conditional, otherwise: this.fallback };
  }

  /**
   * The second step. `unknown` names facts this decision cannot see (a
   * list has no arguments): a `when` reading one may hold, so an allow
   * policy with it applies and a deny policy with it does not, and a list
   * shows what some call could be allowed.
   */
  settle(c: Candidates, facts: () => FactBindings, unknown?: ReadonlySet<FactName>, trace?: ConditionStep[]): AccessDecision {
    if (c.conditional.length === 0) return c.otherwise;
    let bindings: FactBindings | undefined;
    for (const i of c.conditional) {
      const p = this.policies[i];
      const when = p.when!;
      if (unknown && [...when.reads].some((f) => unknown.has(f))) {
        trace?.push({ policyIndex: i, outcome: 'unknown' });
        if (p.effect === 'allow') return p.decision;
        continue;
      }
      const outcome = when.test((bindings ??= facts()));
      if (typeof outcome === 'boolean') {
        trace?.push({ policyIndex: i, outcome: String(outcome) as 'true' | 'false' });
        if (outcome) return p.decision;
      } else {
        trace?.push({ policyIndex: i, outcome: 'error', error: outcome.error });
        if (p.effect === 'deny') return p.decision;
      }
    }
    return c.otherwise;
  }

  /** The `when` of policy `i`, if it has one. */
  conditionOf(i: number): string | undefined {
    return this.policies[i]?.when?.source;
  }
}
