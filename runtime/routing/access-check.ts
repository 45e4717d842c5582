/**
 * What the router asks before it forwards an operation: may this caller use
 * this capability? The answer comes from the policies (runtime/access); the
 * router only needs this much of them.
 */
import type { AccessDecision, CapabilityKind } from '../../schemas/access-config.js';
import type { CallerContext } from './caller.js';

export interface AccessCheck {
  check(caller: CallerContext, kind: CapabilityKind, name: string, backend: string): AccessDecision;
}

export const ALLOWED: AccessDecision = Object.freeze({ allowed: true, policyIndex: null, effect: 'allow' });

/** No authorization: everything is allowed. */
export const ALLOW_ALL: AccessCheck = { check: () => ALLOWED };
