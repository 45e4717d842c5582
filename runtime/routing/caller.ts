/** Who a forwarded request is made for, and how to reach that client back. */
import type { CallerTransport } from './operation.js';
import type { InputRoundsRecord } from '../rounds/input-rounds-record.js';

export type JsonObject = Record<string, unknown>;

export interface CallerContext {
  sessionId: string;
  transport: CallerTransport;
  clientIp?: string;
  /** The authenticated user (runtime/access/identity.ts); absent for anonymous callers and the management API. */
  userId?: string;
  /** Its roles, for the policies; the management API's caller (`transport: 'management'`) is not checked. */
  roles?: readonly string[];
  /** The caller's validated token claims (jwt, oidc), for a policy's `when` (`caller.claims`); never logged. */
  claims?: Readonly<Record<string, unknown>>;
  /**
   * (Not enumerable: never copied, logged or sent to a plugin worker.) The
   * caller's validated incoming token, with the identity it proves: what a
   * backend that acts for each caller (`auth.on_behalf_of`) exchanges for a
   * token of its own. Absent for anonymous callers, local tokens and the
   * management API.
   */
  readonly incomingCredential?: IncomingCredential;
  /** JSON-RPC id of the client's request, when there is one. */
  requestId?: string | number;
  /** Extra facts for the audit record of operations made for this caller (a workflow step: its workflow and step). */
  metadata?: Record<string, unknown>;
  /** The protocol revision the caller speaks (its session's, or its stateless request's); absent for the management API. */
  protocolVersion?: string;
  /** The client program, as it names itself (initialize's clientInfo, or the request's `_meta` envelope). */
  client?: ClientName;
  /**
   * A stateless (2026-07-28) request's own response stream: what belongs to
   * the request and nothing else (a backend's log messages at the level the
   * request asked for) goes there. Absent for session callers, whose session
   * takes such messages.
   */
  requestStream?: RequestStream;
  /**
   * Sends a request to this caller's client in the context of the in-flight
   * call (sampling, elicitation, roots). Absent when the caller cannot answer
   * (the management API). With `onprogress`, the client is asked for progress
   * (a progress token of its own) and each notification is handed over.
   * `timeoutMs`: how long a person may take to answer (the input timeout);
   * absent, the SDK's default request timeout.
   */
  sendRequest?: (request: PeerMessage, signal: AbortSignal, onprogress?: ProgressHandler, timeoutMs?: number) => Promise<JsonObject>;
  /** What the client declared it can answer (initialize's capabilities, or the request's `_meta` envelope's). */
  clientCapabilities?: Readonly<Record<string, unknown>>;
  /**
   * Set for 2026-07-28 callers: a backend's `input_required` goes back to
   * them as the call's result (runtime/rounds/stateless-rounds.ts); for
   * other callers the gateway asks the client itself and repeats the call
   * (runtime/rounds/session-rounds.ts).
   */
  answersInputRequired?: boolean;
  /** The input this call has asked its client for so far, for its audit record. */
  inputRounds?: InputRoundsRecord;
}

/** An identity's validated bearer token: its kind and user id key whatever is obtained with it. */
export interface IncomingCredential {
  type: string;
  userId: string;
  token: string;
}

/** Gives a caller its identity's token, not enumerable (see CallerContext.incomingCredential). */
export function withIncomingCredential<T extends CallerContext>(caller: T, identity: { type: string; userId?: string; token?: string }): T {
  if (identity.userId !== undefined && identity.token !== undefined) {
    const credential: IncomingCredential = { type: identity.type, userId: identity.userId, token: identity.token };
    Object.defineProperty(caller, 'incomingCredential', { value: credential, enumerable: false });
  }
  return caller;
}

/** A request or notification between the gateway and a peer (client or backend), in any revision's vocabulary. */
export interface PeerMessage {
  method: string;
  params?: JsonObject;
}

/** A client program's name and version, as it reports them. */
export interface ClientName {
  name: string;
  version?: string;
}

/** The response stream of one stateless request. */
export interface RequestStream {
  /** The lowest level of log message the request asked for (`io.modelcontextprotocol/logLevel`); none: no log messages. */
  readonly logLevel?: string;
  notify(notification: PeerMessage): void;
}

export type ProgressHandler = (progress: { progress: number; total?: number; message?: string }) => void;

/** How a client's operation is forwarded (router.callTool and its siblings). */
export interface ForwardOptions {
  signal?: AbortSignal;
  /** Set when the client asked for progress: backend progress is relayed through it. */
  onprogress?: ProgressHandler;
  /** Told which backend serves the request, once routing has chosen it. */
  onBackend?: (backend: string) => void;
}

/** What a target (a backend connection, the skills) is given with one forwarded request. */
export interface TargetRequestOptions extends Omit<ForwardOptions, 'onBackend'> {
  timeoutMs: number;
  /** Who the request is made for (a local target such as the skills runs steps on their behalf). */
  caller?: CallerContext;
}
