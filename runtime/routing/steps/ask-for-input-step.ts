/**
 * Step 6 of the call pipeline: a 2026-07-28 backend that needs the client's
 * input answers `input_required`; a client that is sent requests (a
 * 2025-11-25 session) is asked here and the call made again with its
 * answers, round after round (runtime/rounds/session-rounds.ts). A
 * 2026-07-28 client gets the `input_required` itself.
 */
import { isInputRequired } from '../../rounds/input-requests.js';
import type { RoundLimits } from '../../rounds/round-limits.js';
import { answerForSession } from '../../rounds/session-rounds.js';
import type { CallStep } from '../call-pipeline.js';

export function askForInputStep(limits: () => RoundLimits): CallStep {
  return async (call, next) => {
    const result = await next();
    if (!isInputRequired(result)) return result;
    return answerForSession(result, call.caller, (round) => call.request!(round), limits(), call.ctx.backend!, call.opts.signal);
  };
}
