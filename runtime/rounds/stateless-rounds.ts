/**
 * Multi round-trip calls for 2026-07-28 clients, whatever the backend speaks
 * (docs/protocol-versions.md, "Calls that need the client's input"):
 *
 * - a 2025-11-25 backend that sends a request in the middle of the call: the
 *   call is kept running (./waiting-call.ts), the client is answered
 *   `input_required` with those requests, and its repeat of the call brings
 *   the answers to the backend, round after round;
 * - a 2026-07-28 backend that answers `input_required`: passed on, its
 *   `requestState` sealed inside the gateway's, and given back to it with the
 *   client's `inputResponses` when the client repeats the call.
 *
 * Every `requestState` the client sees is the gateway's own, sealed
 * (./state-seal.ts) and bound to the caller, the call and the round
 * (./call-binding.ts). A repeat that reaches a replica not holding the
 * waiting call (or after a restart) runs the call again and answers the
 * backend from the answers the state carries: at least once, and said so in
 * the audit record (`input_rounds.reissued`).
 */
import type { Logger } from '../observability/logging/logger.js';
import { BadRequestError, MissingClientCapabilityError } from '../../schemas/errors.js';
import type { CallerContext, ForwardOptions, JsonObject, ProgressHandler } from '../routing/caller.js';
import { bindingMismatch, bindingOf, type CallBinding } from './call-binding.js';
import { capabilityObject, isInputRequired, jsonBytes, mayHaveLaterRounds, missingCapability, type InputRequests } from './input-requests.js';
import { checkRound, type RoundLimits } from './round-limits.js';
import { StateRefusedError, type StateSeal } from './state-seal.js';
import { WaitingCall, type GivenAnswer } from './waiting-call.js';
import type { InputRoundsRecord } from './input-rounds-record.js';
import type { PeerOutcome, PeerResume, RoundPeers } from './round-peers.js';
import { RpcRefusal } from '../../schemas/errors.js';
import type { UserAuthorizationRequiredError } from '../auth/errors.js';
import { signInNeeded, signInRequest } from './sign-in-rounds.js';
import { CLIENT_GONE, signalledClient, type WaitingClient } from './waiting-client.js';

export interface StatelessRoundsDeps {
  /** The seal of the running config (./seal-source.ts). */
  seal: () => StateSeal;
  limits: () => RoundLimits;
  log: Logger;
  /** The other replicas, when they share sessions: a repeat for a call held elsewhere goes there. */
  peers?: RoundPeers;
  /** An error as a JSON-RPC error (api/error-mapping.ts), to send to another replica. */
  toWire: (err: unknown) => { code: number; message: string; data?: unknown };
  /** Told when a call waited too long for its client and was cancelled at the backend. */
  onInputTimeout?: (backend: string | undefined, waitedMs: number) => void;
}

/** One 2026-07-28 request of a method that may ask for input, as the stateless server received it. */
export interface RoundRequest {
  method: string;
  /** Its params, without `inputResponses` and `requestState` (the SDK lifts them out). */
  params: JsonObject;
  /** Who it is for; the rounds give it the means to be asked (`sendRequest`). */
  caller: CallerContext;
  /** The request's declared client capabilities (`_meta` envelope). */
  capabilities?: Readonly<Record<string, unknown>>;
  inputResponses?: Readonly<Record<string, unknown>>;
  requestState?: string;
  /** The exchange this request waits on: the client closing it before the answer cancels what it waits on. */
  exchange: WaitingClient;
  /** This request's progress relay, when the client asked for progress. */
  onprogress?: ProgressHandler;
}

/** Forwards the call (the method table's handler) with these params, for this caller. */
export type RunCall = (caller: CallerContext, forward: ForwardOptions, params: JsonObject) => Promise<JsonObject>;

/** A state handed to the client: a call waiting here (`w`), or a 2026-07-28 backend's own round passed on (`p`). */
type SealedState =
  | { k: 'w'; id: string; t: string; b: CallBinding; h: GivenAnswer[]; q: Record<string, string> }
  | { k: 'p'; s?: string; b: CallBinding; backend?: string }
  | { k: 's'; b: CallBinding };

interface Held {
  call: WaitingCall;
  record: InputRoundsRecord;
  timer?: NodeJS.Timeout;
  /** A request is waiting on the call now: a second repeat of the same round is refused. */
  attached: boolean;
  /** The backend the call went to, once routed. */
  backend?: string;
  /** Who made the call. */
  caller: CallerContext;
}

const REFUSED = 'Invalid or expired requestState';

export class StatelessRounds {
  private readonly held = new Map<string, Held>();
  /** Calls that ended here, until their last state expires: a state of theirs is not run again. */
  private readonly ended = new Map<string, number>();

  private readonly seal: () => StateSeal;
  private readonly limits: () => RoundLimits;
  private readonly log: Logger;
  private readonly peers?: RoundPeers;

  constructor(private readonly deps: StatelessRoundsDeps) {
    this.seal = deps.seal;
    this.limits = deps.limits;
    this.log = deps.log;
    this.peers = deps.peers;
  }

  /** Who made each call waiting for its client's input on this replica now (GET /clients counts them per client). */
  waitingCallers(): CallerContext[] {
    return [...this.held.values()].map((h) => h.caller);
  }

  async serve(req: RoundRequest, run: RunCall): Promise<JsonObject> {
    if (req.requestState === undefined) return this.start(req, run, [], 0);
    const state = this.open(req);
    if (state.k === 'p') return this.passOn(req, run, state);
    // The user was sent a sign-in URL: the call is made again (asked again while the sign-in is not done).
    if (state.k === 's') return this.start(req, run, [], state.b.r);
    const held = this.held.get(state.id);
    if (held && !held.attached && held.call.round === state.b.r) return this.resume(req, held);
    if (held) throw this.refuse(req, held.attached ? 'round already being answered' : 'stale round');
    if (this.hasEnded(state.id)) throw this.refuse(req, 'call already ended');
    if (this.peers && state.t && state.t !== this.peers.tag) {
      // Another replica holds the call: it finishes it (exactly once), unless it is gone.
      const outcome = await this.peers.resume(state.t, this.peerResume(req, state), req.exchange.signal, req.onprogress);
      if ('result' in outcome) return outcome.result;
      if ('error' in outcome) throw new RpcRefusal(outcome.error.code, outcome.error.message, outcome.error.data as Record<string, unknown> | undefined);
    }
    // Not held here (another replica, or a restart): the call runs again, answered from what the state carries.
    const replay = [...state.h];
    for (const [key, digest] of Object.entries(state.q)) {
      const answer = req.inputResponses?.[key];
      if (isObject(answer)) replay.push({ d: digest, a: answer });
    }
    return this.start(req, run, replay, state.b.r, true);
  }

  private start(req: RoundRequest, run: RunCall, replay: GivenAnswer[], round: number, reissued = false): Promise<JsonObject> {
    const call = new WaitingCall(replay);
    call.round = round;
    const record: InputRoundsRecord = { rounds: round, asked: [] };
    if (reissued) record.reissued = true;
    const caller = req.caller;
    caller.answersInputRequired = true;
    caller.inputRounds = record;
    caller.sendRequest = (request) => call.ask(request);
    const held: Held = { call, record, attached: false, caller };
    // The backend is asked for progress only when someone may hear it: this request, or the repeat of a later
    // round (only a client that can answer some input ever has one). Asking costs the backend call a token and a handler.
    const relay = req.onprogress !== undefined || mayHaveLaterRounds(req.capabilities);
    call.start(callRunner(run, held, req.params, relay));
    return this.settle(req, held);
  }

  private resume(req: RoundRequest, held: Held): Promise<JsonObject> {
    clearTimeout(held.timer);
    this.checkResponses(req);
    held.call.answer(req.inputResponses ?? {});
    return this.settle(req, held);
  }

  /** Waits on the call with this request's exchange: its end is the answer, or the questions it has for the client. */
  private async settle(req: RoundRequest, held: Held): Promise<JsonObject> {
    const { call, record } = held;
    held.attached = true;
    call.progress = req.onprogress;
    const cancel = () => call.cancel(CLIENT_GONE);
    const attached = req.exchange.onAbandoned(cancel);
    let turn;
    try {
      turn = await call.next();
    } finally {
      attached();
      call.progress = undefined;
      held.attached = false;
    }
    if (turn.kind !== 'input') {
      // Only a call that asked for input was held (and has an id to remember).
      if (call.round > 0) {
        this.held.delete(call.id);
        this.ended.set(call.id, Date.now() + this.limits().inputTimeoutMs);
      }
      if (turn.kind === 'error') {
        const signIn = signInNeeded(turn.error, req.capabilities);
        if (signIn) return this.askToSignIn(req, signIn, call.round + 1, held.record);
        throw turn.error;
      }
      return this.passedOn(req, turn.result, call.round + 1);
    }
    const inputRequests: InputRequests = Object.fromEntries(turn.questions.map((q) => [q.key, q.request]));
    try {
      this.checkAsk(req, inputRequests, call.round + 1);
    } catch (err) {
      this.held.delete(call.id);
      call.cancel(err instanceof Error ? err.message : String(err));
      throw err;
    }
    call.round++;
    record.rounds = call.round;
    for (const q of turn.questions) record.asked.push(q.request.method);
    const { inputTimeoutMs } = this.limits();
    this.held.set(call.id, held);
    held.timer = setTimeout(() => {
      this.held.delete(call.id);
      call.cancel(`no input from the client within ${inputTimeoutMs / 1000} s`);
      this.deps.onInputTimeout?.(held.backend, inputTimeoutMs);
    }, inputTimeoutMs).unref();
    const state: SealedState = {
      k: 'w',
      id: call.id,
      t: this.peers?.tag ?? '',
      b: bindingOf(req.caller, req.method, req.params, call.round),
      h: [...call.answers],
      q: Object.fromEntries(turn.questions.map((q) => [q.key, q.digest])),
    };
    return { resultType: 'input_required', inputRequests, requestState: this.seal().seal(state, inputTimeoutMs) };
  }

  /** A user who must sign in first: the client is sent the sign-in URL, and its repeat makes the call again. */
  private askToSignIn(req: RoundRequest, err: UserAuthorizationRequiredError, round: number, record: InputRoundsRecord): JsonObject {
    checkRound(this.limits(), round, {});
    record.rounds = round;
    record.asked.push('elicitation/create');
    const state: SealedState = { k: 's', b: bindingOf(req.caller, req.method, req.params, round) };
    return {
      resultType: 'input_required',
      inputRequests: { sign_in: signInRequest(err) },
      requestState: this.seal().seal(state, this.limits().inputTimeoutMs),
    };
  }

  /** A 2026-07-28 backend's round, repeated: its own state and the client's answers go back to it. */
  private async passOn(req: RoundRequest, run: RunCall, state: Extract<SealedState, { k: 'p' }>): Promise<JsonObject> {
    this.checkResponses(req);
    const caller = req.caller;
    caller.answersInputRequired = true;
    caller.inputRounds = { rounds: state.b.r, asked: [] };
    const params = { ...req.params, inputResponses: req.inputResponses ?? {}, ...(state.s !== undefined ? { requestState: state.s } : {}) };
    const result = await run(caller, { signal: req.exchange.signal, ...(req.onprogress ? { onprogress: req.onprogress } : {}) }, params);
    return this.passedOn(req, result, state.b.r + 1);
  }

  /** A result for the client: a 2026-07-28 backend's `input_required` gets the gateway's sealed state around its own. */
  private passedOn(req: RoundRequest, result: JsonObject, round: number): JsonObject {
    if (!isInputRequired(result)) return result;
    const inputRequests = result.inputRequests ?? {};
    this.checkAsk(req, inputRequests, round);
    if (req.caller.inputRounds) {
      req.caller.inputRounds.rounds = round;
      for (const r of Object.values(inputRequests)) req.caller.inputRounds.asked.push(r.method);
    }
    const state: SealedState = {
      k: 'p',
      ...(result.requestState !== undefined ? { s: result.requestState } : {}),
      b: bindingOf(req.caller, req.method, req.params, round),
    };
    return { ...result, inputRequests, requestState: this.seal().seal(state, this.limits().inputTimeoutMs) };
  }

  /** What the client is asked must be within the limits and within what it declared it can answer. */
  private checkAsk(req: RoundRequest, inputRequests: InputRequests, round: number): void {
    checkRound(this.limits(), round, inputRequests);
    const requests = Object.values(inputRequests);
    const missing = missingCapability(requests, req.capabilities);
    if (missing !== undefined) {
      const method = requests.find((r) => missingCapability([r], req.capabilities) !== undefined)?.method ?? 'the request';
      throw new MissingClientCapabilityError(missing, method, capabilityObject(missing));
    }
  }

  private hasEnded(id: string): boolean {
    const now = Date.now();
    for (const [key, until] of this.ended) if (until <= now) this.ended.delete(key);
    return this.ended.has(id);
  }

  private checkResponses(req: RoundRequest): void {
    const bytes = jsonBytes(req.inputResponses);
    const max = this.limits().maxInputBytes;
    if (bytes > max) throw new BadRequestError(`Invalid params: inputResponses is ${bytes} bytes, more than ${max}`, { reason: 'input_too_large' });
  }

  private open(req: RoundRequest): SealedState {
    let state: SealedState;
    try {
      state = this.seal().open<SealedState>(req.requestState!);
    } catch (err) {
      if (err instanceof StateRefusedError) throw this.refuse(req, err.reason);
      throw err;
    }
    const mismatch = bindingMismatch(state.b, req.caller, req.method, req.params);
    if (mismatch) throw this.refuse(req, mismatch === 'owner' ? 'another identity' : 'another request');
    return state;
  }

  /** One answer for every refused state (the client learns nothing of why); the log says why. */
  private refuse(req: RoundRequest, why: string): Error {
    this.log.info({ method: req.method, user: req.caller.userId ?? null, why }, 'requestState refused');
    return new BadRequestError(REFUSED, { reason: 'invalid_request_state' });
  }

  /** Another replica received the repeat of a call held here: it is resumed here, and its next turn goes back there. */
  async resumeForPeer(r: PeerResume, signal: AbortSignal, onprogress: ProgressHandler): Promise<PeerOutcome> {
    const held = this.held.get(r.id);
    if (!held && !this.hasEnded(r.id)) return { unknown: true };
    const caller: CallerContext = { sessionId: '', transport: 'streamable-http', ...(r.userId !== undefined ? { userId: r.userId } : {}) };
    const req: RoundRequest = {
      method: r.method,
      params: r.params,
      caller,
      capabilities: r.capabilities,
      inputResponses: r.inputResponses,
      exchange: signalledClient(signal),
      onprogress,
    };
    try {
      if (!held || held.attached || held.call.round !== r.round) throw this.refuse(req, held ? 'stale round' : 'call already ended');
      return { result: await this.resume(req, held) };
    } catch (err) {
      return { error: this.deps.toWire(err) };
    }
  }

  private peerResume(req: RoundRequest, state: Extract<SealedState, { k: 'w' }>): PeerResume {
    return {
      id: state.id,
      round: state.b.r,
      method: req.method,
      params: req.params,
      ...(req.caller.userId !== undefined ? { userId: req.caller.userId } : {}),
      ...(req.capabilities ? { capabilities: req.capabilities } : {}),
      ...(req.inputResponses ? { inputResponses: req.inputResponses } : {}),
    };
  }

  /** At shutdown: every waiting call is cancelled at its backend. */
  close(): void {
    for (const held of this.held.values()) {
      clearTimeout(held.timer);
      held.call.cancel('the gateway is shutting down');
    }
    this.held.clear();
  }
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * What a waiting call runs. Made out here so that its closures hold only
 * what they use: closures made in one scope share what they capture, and
 * the caller's `sendRequest` (made in `start`) outlives the request, so a
 * closure made beside it would keep the request's exchange alive with it.
 */
function callRunner(run: RunCall, held: Held, params: JsonObject, relay: boolean): (signal: AbortSignal, onprogress: ProgressHandler) => Promise<JsonObject> {
  const onBackend = (backend: string) => (held.backend = backend);
  return (signal, onprogress) => run(held.caller, { signal, ...(relay ? { onprogress } : {}), onBackend }, params);
}
