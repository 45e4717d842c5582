/**
 * A 2026-07-28 backend's `input_required`, for a client that is sent
 * requests instead (a 2025-11-25 session): the gateway asks the client each
 * request on the call's own stream, and repeats the backend call with the
 * answers (`inputResponses`) and the backend's `requestState`, round after
 * round, until the backend answers the call. A caller that speaks
 * 2026-07-28 itself gets the `input_required` as it is
 * (./stateless-rounds.ts); one that cannot be asked anything (the
 * management API) too.
 */
import { MissingClientCapabilityError } from '../../schemas/errors.js';
import type { CallerContext, JsonObject } from '../routing/caller.js';
import { capabilityObject, isInputRequired, missingCapability } from './input-requests.js';
import { checkRound, type RoundLimits } from './round-limits.js';
import type { InputRoundsRecord } from './input-rounds-record.js';

/** Repeats the backend call with one round's answers. */
export type RepeatCall = (round: { inputResponses: JsonObject; requestState?: string }) => Promise<JsonObject>;

export async function answerForSession(
  first: JsonObject,
  caller: CallerContext,
  repeat: RepeatCall,
  limits: RoundLimits,
  backend: string,
  signal: AbortSignal | undefined,
): Promise<JsonObject> {
  let result = first;
  const ask = caller.sendRequest;
  if (caller.answersInputRequired || !ask) return result;
  const record: InputRoundsRecord = caller.inputRounds ?? { rounds: 0, asked: [] };
  caller.inputRounds = record;
  while (isInputRequired(result)) {
    const requests = Object.entries(result.inputRequests ?? {});
    checkRound(limits, record.rounds + 1, result.inputRequests, backend);
    const missing = missingCapability(
      requests.map(([, r]) => r),
      caller.clientCapabilities,
    );
    if (missing !== undefined)
      throw new MissingClientCapabilityError(
        missing,
        requests.find(([, r]) => missingCapability([r], caller.clientCapabilities))![1].method,
        capabilityObject(missing),
      );
    record.rounds++;
    for (const [, r] of requests) record.asked.push(r.method);
    // A human may be answering: each request waits up to the input timeout, and no longer than the call itself.
    const waiting = AbortSignal.any([AbortSignal.timeout(limits.inputTimeoutMs), ...(signal ? [signal] : [])]);
    const answers = await Promise.all(requests.map(async ([key, request]) => [key, await ask(request, waiting, undefined, limits.inputTimeoutMs)] as const));
    result = await repeat({ inputResponses: Object.fromEntries(answers), ...(result.requestState !== undefined ? { requestState: result.requestState } : {}) });
  }
  return result;
}
