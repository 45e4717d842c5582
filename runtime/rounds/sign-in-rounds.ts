/**
 * A backend that acts for each user (`auth.on_behalf_of.type: user_oauth`)
 * needs this user to sign in first. A client that can show a URL
 * (URL-mode elicitation) is sent the sign-in URL as its request in the middle
 * of the call, and the call goes on once the user has signed in:
 *
 * - a 2025-11-25 session is asked `elicitation/create` (mode `url`) on the
 *   call's stream; after it accepts, the call waits (up to the input
 *   timeout) for the sign-in to complete and is then made again;
 * - a 2026-07-28 client gets `input_required` with that request
 *   (./stateless-rounds.ts); its repeat makes the call again.
 *
 * Any other client gets the error itself, which names the URL and the
 * command that signs the user in.
 */
import { randomUUID } from 'node:crypto';
import { UserAuthorizationRequiredError } from '../auth/errors.js';
import type { CallerContext, JsonObject, PeerMessage } from '../routing/caller.js';
import { declares } from './input-requests.js';
import type { RoundLimits } from './round-limits.js';

/** When a user's sign-in to a backend completes (runtime/auth/user-sign-ins.ts). */
export interface SignInWaiter {
  whenSignedIn(backend: string, user: string, signal: AbortSignal): Promise<void>;
}

/** The sign-in a refusal asks for, when the client can be sent it as a URL. */
export function signInNeeded(err: unknown, capabilities: Readonly<Record<string, unknown>> | undefined): UserAuthorizationRequiredError | undefined {
  return err instanceof UserAuthorizationRequiredError && declares(capabilities, 'elicitation.url') ? err : undefined;
}

/** The URL-mode elicitation that hands the user the sign-in URL. */
export function signInRequest(err: UserAuthorizationRequiredError): PeerMessage {
  const backend = String(err.details.backend);
  return {
    method: 'elicitation/create',
    params: { mode: 'url', message: `Sign in to ${backend} to let it act for you`, url: err.authorizationUrl, elicitationId: randomUUID() },
  };
}

/** For a session caller: asks it to sign in, waits for the sign-in, makes the call again; else the refusal stands. */
export async function signInForSession(
  err: unknown,
  caller: CallerContext,
  again: () => Promise<JsonObject>,
  limits: RoundLimits,
  waiter: SignInWaiter,
  signal: AbortSignal | undefined,
): Promise<JsonObject> {
  const needed = caller.answersInputRequired ? undefined : signInNeeded(err, caller.clientCapabilities);
  if (!needed || !caller.sendRequest || caller.userId === undefined) throw err;
  const waiting = AbortSignal.any([AbortSignal.timeout(limits.inputTimeoutMs), ...(signal ? [signal] : [])]);
  const signedIn = waiter.whenSignedIn(String(needed.details.backend), caller.userId, waiting);
  // Settled either way below; never left to reject unheard.
  signedIn.catch(() => undefined);
  const answer = await caller.sendRequest(signInRequest(needed), waiting, undefined, limits.inputTimeoutMs);
  if (answer.action !== 'accept') throw err;
  const record = (caller.inputRounds ??= { rounds: 0, asked: [] });
  record.rounds++;
  record.asked.push('elicitation/create');
  await signedIn;
  return again();
}
