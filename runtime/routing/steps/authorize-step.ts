/**
 * Step 3 of the call pipeline: asks the policies about the resolved
 * capability. A refusal is recorded on the operation for the audit and
 * answers exactly as an unknown name does, so a caller learns nothing of
 * what it may not use, not even that it is held back or its backend down.
 */
import type { AccessCheck } from '../access-check.js';
import { callFacts } from '../call-facts.js';
import type { CallStep } from '../call-pipeline.js';

export function authorizeStep(access: AccessCheck): CallStep {
  return (call, next) => {
    const { ctx, caller, op, route } = call;
    const decision = access.check(caller, op.kind, ctx.capability, ctx.backend!, () => callFacts(caller, op.wireMethod, op.arguments, route));
    if (!decision.allowed) {
      ctx.denial = decision;
      return Promise.reject(op.notFound());
    }
    if (call.unserved) return Promise.reject(call.unserved);
    return next();
  };
}
