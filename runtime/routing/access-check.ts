/**
 * What the router asks before it forwards an operation: may this caller use
 * this capability? The answer comes from the policies (runtime/access); the
 * router only needs this much of them. `facts` are what a policy's `when`
 * may read of the call (its arguments, the tool's annotations, the request,
 * the caller's claims); without them a `when` sees empty arguments. They
 * may come as a function, called only when a `when` is evaluated: a call
 * with authorization off, or with no condition to judge, gathers nothing.
 */
import type { AccessDecision, CallFacts, CapabilityKind } from '../../schemas/access-config.js';
import type { CallerContext } from './caller.js';

export interface AccessCheck {
  check(caller: CallerContext, kind: CapabilityKind, name: string, backend: string, facts?: CallFacts | (() => CallFacts)): AccessDecision;
}

/** What a list's filter may know of its caller besides the roles: no arguments, as no call is made yet. */
export type ListFacts = Pick<CallFacts, 'claims' | 'request'>;

export const ALLOWED: AccessDecision = Object.freeze({ allowed: true, policyIndex: null, effect: 'allow' });

/** No authorization: everything is allowed. */
export const ALLOW_ALL: AccessCheck = { check: () => ALLOWED };
