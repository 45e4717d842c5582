/**
 * The policies of `authorization`, compiled once per config: checked in
 * order, the first whose roles and resources both match decides; when none
 * does, `default_effect` applies. A policy's roles match a caller holding any
 * of them; `*` matches every caller, even one with no roles.
 */
import type { AccessDecision, AuthorizationSpec, PolicyEffect } from '../../schemas/access-config.js';
import { compileResourceGlobs, type NameMatcher } from './resource-glob.js';

interface CompiledPolicy {
  effect: PolicyEffect;
  anyCaller: boolean;
  roles: ReadonlySet<string>;
  matches: NameMatcher;
}

export class AccessPolicy {
  private readonly policies: CompiledPolicy[];
  private readonly fallback: AccessDecision;

  constructor(spec: Pick<AuthorizationSpec, 'default_effect' | 'policies'>) {
    this.policies = spec.policies.map((p) => ({
      effect: p.effect,
      anyCaller: p.roles.includes('*'),
      roles: new Set(p.roles),
      matches: compileResourceGlobs(p.resources),
    }));
    this.fallback = Object.freeze({ allowed: spec.default_effect === 'allow', policyIndex: null, effect: spec.default_effect });
  }

  /** The verdict for a caller with `roles` on a capability known by `names` (./resource-names.ts). */
  decide(roles: readonly string[], names: readonly string[]): AccessDecision {
    for (let i = 0; i < this.policies.length; i++) {
      const p = this.policies[i];
      if (!p.anyCaller && !roles.some((r) => p.roles.has(r))) continue;
      if (names.some((n) => p.matches(n))) return { allowed: p.effect === 'allow', policyIndex: i, effect: p.effect };
    }
    return this.fallback;
  }
}
