/**
 * Step 7 of the call pipeline: a backend that acts for each user through
 * that user's own sign-in (`on_behalf_of.type: user_oauth`) refuses a user
 * who has not signed in; the client is sent the sign-in URL when it can show
 * one, and the call is made again once the user has signed in
 * (runtime/rounds/sign-in-rounds.ts). Other backends' calls pass untouched:
 * no extra promise per call.
 */
import type { RoundLimits } from '../../rounds/round-limits.js';
import { signInForSession, type SignInWaiter } from '../../rounds/sign-in-rounds.js';
import type { CallStep } from '../call-pipeline.js';

export function signInStep(signIns: () => SignInWaiter | undefined, limits: () => RoundLimits): CallStep {
  return (call, next) => {
    const waiter = call.owner?.actsForCallers === 'user_oauth' ? signIns() : undefined;
    if (!waiter) return next();
    return next().catch((err: unknown) => signInForSession(err, call.caller, next, limits(), waiter, call.opts.signal));
  };
}
