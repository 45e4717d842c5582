/**
 * A call to a backend that asks its client for input in the middle of it (a
 * 2025-11-25 backend sends `elicitation/create`, `sampling/createMessage`,
 * `roots/list`), made for a 2026-07-28 client, which cannot be sent a
 * request: the backend's call is kept running here while the client is
 * answered `input_required`, and the client's repeat of the call brings the
 * answers back to the backend's waiting requests, round after round, until
 * the call ends.
 *
 * The call is not tied to any one HTTP exchange: its own signal cancels it at
 * the backend (the client closing the exchange that is waiting on it, the
 * input timeout, or a refusal); progress goes to whichever exchange waits on
 * it now. A call started again on a replica that does not hold the original
 * (`replay`) answers the backend's requests it already has answers for at
 * once, in order, and asks the client only for what is new.
 */
import { randomUUID } from 'node:crypto';
import { isInputMethod } from './input-requests.js';
import { requestDigest } from './call-binding.js';
import type { JsonObject, PeerMessage, ProgressHandler } from '../routing/caller.js';

/** A request of the backend the client has not answered yet. */
export interface OpenQuestion {
  readonly key: string;
  readonly request: PeerMessage;
  /** Digest of the request's method and params: how a replay recognises it. */
  readonly digest: string;
}

/** A request the client answered, kept so that a call started again elsewhere can answer it the same way. */
export interface GivenAnswer {
  /** Digest of the request it answered. */
  d: string;
  /** The client's answer. */
  a: JsonObject;
}

/** What the call is doing, as seen by whoever waits on it. */
export type CallTurn = { kind: 'result'; result: JsonObject } | { kind: 'error'; error: unknown } | { kind: 'input'; questions: OpenQuestion[] };

interface Pending extends OpenQuestion {
  resolve(answer: JsonObject): void;
  reject(err: Error): void;
}

export class WaitingCall {
  private key?: string;
  /** Rounds of input asked for so far. */
  round = 0;
  /** Answers given so far, in the order the backend asked. */
  readonly answers: GivenAnswer[] = [];
  private readonly controller = new AbortController();
  /** Made when the backend first asks: most calls never do. */
  private pending?: Map<string, Pending>;
  private outcome?: CallTurn;
  private wake?: () => void;
  private seq = 0;
  private progressSink?: ProgressHandler;

  constructor(
    /** Answers from an earlier run of this call, to give the backend again without asking (empty: a first run). */
    private readonly replay: GivenAnswer[] = [],
  ) {}

  /** The call's id, made when first asked for: only a call that waits for its client needs one (most never do). */
  get id(): string {
    return (this.key ??= randomUUID());
  }

  /** Cancels the backend's call when aborted. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Runs the call; what it asks of its client goes through `ask`. */
  start(run: (signal: AbortSignal, onprogress: ProgressHandler) => Promise<JsonObject>): void {
    run(this.signal, (p) => this.progressSink?.(p)).then(
      (result) => this.finish({ kind: 'result', result }),
      (error: unknown) => this.finish({ kind: 'error', error }),
    );
  }

  /** A request of the backend for the client: answered from the replay when it has it, else kept until the client answers. */
  ask(request: PeerMessage): Promise<JsonObject> {
    if (!isInputMethod(request.method)) return Promise.reject(new Error(`${request.method} is not a request a client answers in the middle of a call`));
    const digest = requestDigest(request.method, request.params ?? {});
    const replayed = this.replay.findIndex((r) => r.d === digest);
    if (replayed >= 0) {
      const [given] = this.replay.splice(replayed, 1);
      this.answers.push(given);
      return Promise.resolve(given.a);
    }
    return new Promise((resolve, reject) => {
      const key = `input-${++this.seq}`;
      (this.pending ??= new Map()).set(key, { key, request, digest, resolve, reject });
      // Requests the backend sends together go to the client in one round.
      setImmediate(() => this.wake?.());
    });
  }

  /** The next thing the waiter must act on: the call's end, or questions for the client. */
  next(): Promise<CallTurn> {
    if (this.outcome) return Promise.resolve(this.outcome);
    if (this.pending?.size) return Promise.resolve(this.questions());
    return new Promise((resolve) => {
      this.wake = () => {
        this.wake = undefined;
        resolve(this.outcome ?? this.questions());
      };
    });
  }

  /** Hands the client's answers to the backend's waiting requests; keys it does not know are ignored. */
  answer(responses: Readonly<Record<string, unknown>>): void {
    const pending = this.pending;
    if (!pending) return;
    for (const [key, value] of Object.entries(responses)) {
      const q = pending.get(key);
      if (!q || typeof value !== 'object' || value === null || Array.isArray(value)) continue;
      pending.delete(key);
      this.answers.push({ d: q.digest, a: value as JsonObject });
      q.resolve(value as JsonObject);
    }
  }

  /** Where progress of the backend's call goes now (the exchange waiting on it), or nowhere. */
  set progress(sink: ProgressHandler | undefined) {
    this.progressSink = sink;
  }

  /** Ends the call at the backend; its open questions are refused. */
  cancel(reason: string): void {
    for (const q of this.pending?.values() ?? []) q.reject(new Error(reason));
    this.pending?.clear();
    this.controller.abort(reason);
  }

  private questions(): CallTurn {
    return { kind: 'input', questions: [...(this.pending?.values() ?? [])].map(({ key, request, digest }) => ({ key, request, digest })) };
  }

  private finish(turn: CallTurn): void {
    this.outcome = turn;
    this.wake?.();
  }
}
