/**
 * The server side of MCP streamable HTTP on Node's own req/res, for `/mcp`.
 *
 * It replaces the SDK's StreamableHTTPServerTransport on the proxy hot path.
 * That class converts every Node request into a web Request and every answer
 * into a web Response with a ReadableStream (@hono/node-server), re-validates
 * every message with zod, copies the headers into an object and arms an SSE
 * keep-alive timer per POST: most of the gateway's CPU per proxied call. This
 * one writes to the Node response directly and keeps the SDK's behaviour:
 *
 * - POST: 406 unless Accept has application/json and text/event-stream, 415
 *   unless the body is JSON; initialize creates the session (one per
 *   transport; a second one is refused); other messages need the session id
 *   (400 without, 404 when it is not this session's) and a supported
 *   Mcp-Protocol-Version if one is sent; notifications and responses alone get
 *   202; batches of at most 100 messages.
 * - A POST carrying requests is answered on its own response. The answer is a
 *   plain JSON body when nothing else comes first; as soon as a message tied
 *   to the request is sent before the answer (progress, sampling,
 *   elicitation, logging) or the answer takes longer than SSE_AFTER_MS, the
 *   response becomes an SSE stream and carries every message as an event
 *   (both are valid streamable HTTP answers; SDK clients take either).
 * - GET opens the one standalone SSE stream (409 for a second) for messages
 *   tied to no request; without one they are dropped, as in the SDK.
 * - DELETE ends the session. SSE streams get a keep-alive comment every 15 s.
 *
 * Streams are resumable (./sse-stream.ts): every SSE event has an id, a
 * POST stream opens with a priming event (an id, no data) for clients of
 * protocol 2025-11-25 and later, and a GET with `Last-Event-ID` replays what
 * the client missed, then carries on. A dropped connection is not a
 * cancellation: the calls of a dropped POST stream run on, and are cancelled
 * (`onrequestsabandoned`) only if no one resumes the stream within the replay
 * window.
 *
 * With several replicas (a `ClusterLink`), what crosses them goes through
 * the link: the standalone stream lives in the shared store, POST streams are
 * mirrored there for a resume elsewhere, the ids of requests this replica
 * sends to the client carry its tag (so the answer reaches it wherever it
 * lands), and a client's cancellation is told to every replica.
 *
 * It is the one layer that checks the protocol (media types, message shape,
 * batches, the session header and protocol version): the /mcp routes only
 * find the session a request belongs to, and answer a POST that names none
 * and does not initialize one with `refuseSessionless()`, which runs the same
 * checks first.
 *
 * Not implemented because the gateway does not use them: stateless mode,
 * DNS-rebinding host/origin checks.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JSONRPCMessage, MessageExtraInfo, RequestId, Transport, TransportSendOptions } from '@modelcontextprotocol/server';
import { LEGACY_PROTOCOL_VERSIONS } from './gateway-capabilities.js';
import { isRequestMessage, isResponseMessage, serializeMessage, unanswerableReason } from '../../runtime/transports/json-rpc.js';
import { unanswerableRefusal } from '../error-mapping.js';
import {
  BadRequestError,
  InvalidMessageError,
  NotAcceptableError,
  RequestIdInFlightError,
  SessionNotFoundError,
  StreamConflictError,
  type GatewayError,
} from '../../schemas/errors.js';
import { writeError, writeJsonText } from './http-answers.js';
import { checkPost, isInitialize, takesPrimingEvents, type Message } from './post-checks.js';
import { SseStream } from './sse-stream.js';
import { STANDALONE_STREAM, parseEventId, parseSeq } from './event-id.js';
import type { ClusterLink, FollowedStream } from './cluster-link.js';
import { tagRequestId, taggedRequestId } from './request-tags.js';

export interface NodeStreamableHttpOptions {
  sessionIdGenerator: () => string;
  /** A session this replica takes up from the shared store: already initialized, with this id. */
  sessionId?: string;
  /** Awaited before initialize reaches the server; a throw refuses it (its error is the answer). */
  onsessioninitialized?: (sessionId: string) => void | Promise<void>;
  onsessionclosed?: (sessionId: string) => void | Promise<void>;
  /** A POST's stream dropped and was not resumed within the replay window: these requests will never be read. */
  onrequestsabandoned?: (ids: RequestId[]) => void;
  /** SSE keep-alive comment interval (default 15 s, as in the SDK); 0 turns it off. */
  keepAliveMs?: number;
  /** How long SSE events are kept for a resume, and how long a dropped stream's calls wait for one (default 60 s). */
  replayMs?: number;
  /** The other replicas, when sessions are shared. */
  cluster?: ClusterLink;
}

const DEFAULT_KEEP_ALIVE_MS = 15_000;
/**
 * What handlers get beside each message: nothing. The session's server knows
 * its caller from the session (the routes authenticated every request), and
 * a web Request built per message for the SDK's `ctx.http.req` would cost
 * more than the call it describes.
 */
const NO_EXTRA: MessageExtraInfo | undefined = undefined;
const DEFAULT_REPLAY_MS = 60_000;
/**
 * A request still unanswered after this long gets SSE headers, so a slow tool
 * call never leaves the client waiting for response headers (undici gives up
 * on headers after 300 s by default).
 */
const SSE_AFTER_MS = 1_000;

/** One POST's requests and the response that answers them (one request, or a batch). */
interface PostStream {
  res: ServerResponse;
  /** Ids of the requests this response must answer. */
  ids: RequestId[];
  /** Answers collected so far, in arrival order. */
  answers: JSONRPCMessage[];
  batch: boolean;
  done: boolean;
  /** Whether the client takes a priming event. */
  primed: boolean;
  /** Set once the response became SSE: from then on the stream outlives its connection. */
  sse?: SseStream;
  timer?: NodeJS.Timeout;
  /** Connections on other replicas that took the stream up. */
  followers: number;
  /** Armed while no connection carries the stream: its calls are cancelled when it fires. */
  orphanTimer?: NodeJS.Timeout;
}

export class NodeStreamableHttpTransport implements Transport {
  sessionId?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  /** The options' callbacks, settable like the handlers above (the owner of a session may exist only after its transport). */
  onsessioninitialized?: NodeStreamableHttpOptions['onsessioninitialized'];
  onsessionclosed?: NodeStreamableHttpOptions['onsessionclosed'];
  onrequestsabandoned?: NodeStreamableHttpOptions['onrequestsabandoned'];

  private started = false;
  private initialized = false;
  private closed = false;
  /** Unanswered requests → the stream that must answer them. */
  private readonly streams = new Map<RequestId, PostStream>();
  /** POST streams that became SSE, by stream id: kept for a resume until the replay window after their end. */
  private readonly resumable = new Map<string, PostStream>();
  private streamCount = 0;
  /** The standalone stream (memory store): lingers for the replay window after its connection dropped. */
  private standalone?: SseStream;
  private standaloneLinger?: NodeJS.Timeout;
  /** The standalone stream followed from the shared store (cluster). */
  private followed?: FollowedStream | 'opening';
  private readonly keepAliveMs: number;
  private readonly replayMs: number;
  private readonly cluster?: ClusterLink;

  constructor(private readonly opts: NodeStreamableHttpOptions) {
    this.keepAliveMs = opts.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    this.replayMs = opts.replayMs ?? DEFAULT_REPLAY_MS;
    this.cluster = opts.cluster;
    this.onsessioninitialized = opts.onsessioninitialized;
    this.onsessionclosed = opts.onsessionclosed;
    this.onrequestsabandoned = opts.onrequestsabandoned;
    if (opts.sessionId !== undefined) {
      this.sessionId = opts.sessionId;
      this.initialized = true;
    }
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('Transport already started');
    this.started = true;
  }

  /**
   * A POST that names no session and carries no initialize request: after the
   * same checks as any POST (so a malformed body is told what is wrong with
   * it), 400: there is no session to send it to.
   */
  static refuseSessionless(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    const checked = checkPost(req, body);
    writeError(res, 'refusal' in checked ? checked.refusal : new BadRequestError('Bad Request: no session; the first request must be initialize'));
  }

  /** A POST of this session (or the initialize that creates it), with its parsed body. */
  async handlePost(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (this.closed) return this.refuse(res, new SessionNotFoundError());
    const checked = checkPost(req, body);
    if ('refusal' in checked) return this.refuse(res, checked.refusal);
    const { batch } = checked;
    let msgs = checked.messages;

    const init = msgs.find(isInitialize);
    if (init) {
      if (this.initialized && this.sessionId !== undefined) return this.refuse(res, new InvalidMessageError('Invalid Request: Server already initialized'));
      if (msgs.length > 1) return this.refuse(res, new InvalidMessageError('Invalid Request: Only one initialization request is allowed'));
      this.sessionId = this.opts.sessionIdGenerator();
      this.initialized = true;
      try {
        await this.onsessioninitialized?.(this.sessionId);
      } catch (err) {
        // Refused (the session store is unreachable, the cluster is full): no session was made.
        this.sessionId = undefined;
        this.initialized = false;
        this.onerror?.(err instanceof Error ? err : new Error(String(err)));
        return writeError(res, err);
      }
    } else {
      const problem = this.checkSession(req, res);
      if (problem) return;
    }
    if (this.closed) return this.refuse(res, new SessionNotFoundError());

    const ids: RequestId[] = [];
    for (const m of msgs) if (isRequestMessage(m)) ids.push(m.id as RequestId);
    const duplicates = ids.filter((id, i) => this.streams.has(id) || ids.indexOf(id) !== i);
    if (duplicates.length > 0) return this.refuse(res, new RequestIdInFlightError(duplicates, batch));
    const unanswerable = msgs.map(unanswerableReason).find((r) => r !== undefined);
    if (unanswerable !== undefined) {
      // The SDK would drop it silently; no request may go unanswered.
      const id = batch ? null : ((msgs[0]!.id as RequestId | undefined) ?? null);
      return writeError(res, unanswerableRefusal(unanswerable, id, true));
    }
    if (this.cluster) msgs = this.crossReplicas(msgs);
    if (ids.length === 0) {
      res.writeHead(202).end();
      for (const m of msgs) this.onmessage?.(m as JSONRPCMessage, NO_EXTRA);
      return;
    }
    const version = init ? (init.params as { protocolVersion?: string } | undefined)?.protocolVersion : req.headers['mcp-protocol-version'];
    const stream: PostStream = { res, ids, answers: [], batch, done: false, primed: takesPrimingEvents(version as string | undefined), followers: 0 };
    for (const id of ids) this.streams.set(id, stream);
    stream.timer = setTimeout(() => this.toSse(stream), SSE_AFTER_MS).unref();
    res.once('close', () => this.unattended(stream));
    for (const m of msgs) this.onmessage?.(m as JSONRPCMessage, NO_EXTRA);
  }

  /** The GET that opens this session's standalone SSE stream, or resumes a stream with `Last-Event-ID`. */
  async handleGet(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.closed) return this.refuse(res, new SessionNotFoundError());
    if (!req.headers.accept?.includes('text/event-stream')) {
      return this.refuse(res, new NotAcceptableError('Not Acceptable: Client must accept text/event-stream'));
    }
    if (this.checkSession(req, res)) return;
    const last = parseEventId(req.headers['last-event-id']);
    if (last && last.stream !== STANDALONE_STREAM) return this.resumePost(last.stream, last.seq, res);
    const primed = takesPrimingEvents(req.headers['mcp-protocol-version'] as string | undefined);
    if (this.cluster) return this.followStandalone(res, last?.seq, primed);

    const stream = this.standalone;
    if (stream?.attached) return this.refuse(res, new StreamConflictError('Conflict: Only one SSE stream is allowed per session'));
    clearTimeout(this.standaloneLinger);
    const afterSeq = last ? parseSeq(last.seq) : undefined;
    if (stream && afterSeq !== undefined && stream.canResumeAfter(afterSeq)) return stream.attach(res, afterSeq);
    const fresh = stream ?? new SseStream(STANDALONE_STREAM, this.streamOptions());
    this.standalone = fresh;
    // Messages sent while no connection carries it wait for a resume, within the replay window.
    fresh.ondetach = () => {
      clearTimeout(this.standaloneLinger);
      this.standaloneLinger = setTimeout(() => {
        if (this.standalone === fresh && !fresh.attached) this.standalone = undefined;
      }, this.replayMs).unref();
    };
    fresh.attach(res);
    if (primed) fresh.emit({ priming: true });
  }

  /** The DELETE that ends this session. */
  async handleDelete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.closed) return this.refuse(res, new SessionNotFoundError());
    if (this.checkSession(req, res)) return;
    try {
      await this.onsessionclosed?.(this.sessionId!);
    } catch (err) {
      // The session could not be ended everywhere (the session store is unreachable): it stays, and the client may retry.
      return writeError(res, err);
    }
    try {
      res.writeHead(200).end();
    } finally {
      await this.close();
    }
  }

  /** A message for this session that arrived at another replica (an answer to our request, a cancellation). */
  receive(message: JSONRPCMessage): void {
    if (this.closed) return;
    const m = message as Message;
    if (this.cluster && isResponseMessage(m)) {
      const tagged = taggedRequestId(m.id);
      if (tagged?.tag !== this.cluster.tag) return;
      this.onmessage?.({ ...m, id: tagged.id } as JSONRPCMessage);
      return;
    }
    this.onmessage?.(message);
  }

  /** Ends the standalone stream's connection with a `retry:` hint, so the client reconnects (to another replica). */
  endStandalone(retryMs: number): void {
    this.standalone?.close(retryMs);
    if (this.followed && this.followed !== 'opening') this.followed.close(retryMs);
  }

  /** Session and protocol-version checks of every request after initialize; answers and returns true on failure. */
  private checkSession(req: IncomingMessage, res: ServerResponse): boolean {
    if (!this.initialized) {
      this.refuse(res, new BadRequestError('Bad Request: Server not initialized'));
      return true;
    }
    const id = req.headers['mcp-session-id'];
    if (!id) {
      this.refuse(res, new BadRequestError('Bad Request: Mcp-Session-Id header is required'));
      return true;
    }
    if (id !== this.sessionId) {
      this.refuse(res, new SessionNotFoundError());
      return true;
    }
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && !LEGACY_PROTOCOL_VERSIONS.includes(String(version))) {
      const message = `Bad Request: Unsupported protocol version: ${String(version)} (supported versions: ${LEGACY_PROTOCOL_VERSIONS.join(', ')})`;
      this.refuse(res, new BadRequestError(message));
      return true;
    }
    return false;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as Message;
    const response = isResponseMessage(m);
    const requestId = response ? (m.id as RequestId) : options?.relatedRequestId;
    // A request to the client (or its cancellation) names this replica, so the answer finds its way back here.
    if (this.cluster && !response) message = this.tagOutgoing(message);
    if (requestId === undefined) {
      if (response) throw new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request');
      if (this.cluster) this.cluster.sendStandalone(this.sessionId!, message);
      else this.standalone?.emit({ message });
      return;
    }
    const stream = this.streams.get(requestId);
    if (!stream) {
      // Closed, or already answered: nobody will read it.
      if (this.closed) return;
      throw new Error(`No connection established for request ID: ${String(requestId)}`);
    }
    if (!response) {
      // Something precedes the answer: this response becomes an SSE stream.
      this.toSse(stream);
      stream.sse?.emit({ message });
      return;
    }
    stream.answers.push(message);
    stream.sse?.emit({ message });
    if (stream.answers.length < stream.ids.length) return;
    // Every request of this POST is answered: finish the response.
    this.finish(stream);
    if (!stream.sse) {
      const text = stream.batch ? `[${stream.answers.map(serializeMessage).join(',')}]` : serializeMessage(stream.answers[0]);
      writeJsonText(stream.res, 200, text, this.sessionId === undefined ? undefined : { 'mcp-session-id': this.sessionId });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stream of new Set(this.streams.values())) {
      this.finish(stream);
      if (!stream.sse && !stream.res.headersSent) writeError(stream.res, new SessionNotFoundError('Session closed'));
      else if (!stream.sse) stream.res.end();
    }
    this.streams.clear();
    for (const stream of this.resumable.values()) stream.sse?.finish();
    this.resumable.clear();
    clearTimeout(this.standaloneLinger);
    this.standalone?.finish();
    this.standalone = undefined;
    if (this.followed && this.followed !== 'opening') this.followed.close();
    this.followed = undefined;
    this.onclose?.();
  }

  /** A stream that another replica's connection took up, or left: its calls wait for a resume only while nobody carries it. */
  followerChanged(streamId: string, delta: 1 | -1): void {
    const stream = this.resumable.get(streamId);
    if (!stream) return;
    stream.followers = Math.max(0, stream.followers + delta);
    if (stream.followers > 0) this.attended(stream);
    else this.unattended(stream);
  }

  /** Switches a POST response to SSE: headers now, a priming event when the client takes one, and every later message as an event. */
  private toSse(stream: PostStream): void {
    if (stream.sse || stream.done) return;
    clearTimeout(stream.timer);
    stream.timer = undefined;
    const id = `${this.cluster ? `${this.cluster.tag}.` : ''}${++this.streamCount}`;
    const cluster = this.cluster;
    const sessionId = this.sessionId!;
    const sse = new SseStream(id, this.streamOptions(cluster ? (seq, entry) => cluster.mirror(sessionId, id, seq, entry) : undefined));
    stream.sse = sse;
    this.resumable.set(id, stream);
    sse.ondetach = () => this.unattended(stream);
    const res = stream.res;
    if (!res.writableEnded && !res.destroyed) sse.attach(res);
    if (stream.primed) sse.emit({ priming: true });
    // Answers that arrived before the switch (a batch answered in part) go out first.
    for (const a of stream.answers) sse.emit({ message: a });
  }

  private finish(stream: PostStream): void {
    stream.done = true;
    clearTimeout(stream.timer);
    this.attended(stream);
    for (const id of stream.ids) if (this.streams.get(id) === stream) this.streams.delete(id);
    const sse = stream.sse;
    if (!sse) return;
    // A connection that carried the end got everything: nothing is left to resume.
    const delivered = sse.attached;
    sse.finish();
    if (delivered) {
      this.resumable.delete(sse.id);
      return;
    }
    // Kept for a client that resumes after the end: it gets the answers it missed.
    setTimeout(() => {
      if (this.resumable.get(sse.id) === stream) this.resumable.delete(sse.id);
    }, this.replayMs).unref();
  }

  /** No connection carries the stream any more: its calls run on, and are cancelled if nobody resumes it in time. */
  private unattended(stream: PostStream): void {
    if (stream.done || stream.orphanTimer || stream.sse?.attached || stream.followers > 0) return;
    stream.orphanTimer = setTimeout(() => {
      stream.orphanTimer = undefined;
      if (stream.done || stream.sse?.attached || stream.followers > 0) return;
      const answered = new Set(stream.answers.map((a) => (a as Message).id as RequestId));
      const left = stream.ids.filter((id) => !answered.has(id));
      if (left.length > 0) this.onrequestsabandoned?.(left);
    }, this.replayMs);
    stream.orphanTimer.unref();
  }

  private attended(stream: PostStream): void {
    clearTimeout(stream.orphanTimer);
    stream.orphanTimer = undefined;
  }

  /** GET with a `Last-Event-ID` of a POST stream: the events the client missed, then the rest, then the end. */
  private async resumePost(streamId: string, seq: string, res: ServerResponse): Promise<void> {
    const local = this.resumable.get(streamId);
    const after = parseSeq(seq);
    if (local?.sse && after !== undefined && local.sse.canResumeAfter(after)) {
      this.attended(local);
      local.sse.attach(res, after);
      return;
    }
    if (!local && this.cluster && (await this.cluster.resume(this.sessionId!, streamId, seq, res, this.sessionHeaders()))) return;
    this.refuse(
      res,
      new BadRequestError(
        `Bad Request: Last-Event-ID ${streamId}/${seq} names no stream of this session that can be resumed (unknown, or older than the replay window)`,
      ),
    );
  }

  private async followStandalone(res: ServerResponse, afterId: string | undefined, primed: boolean): Promise<void> {
    if (this.followed) return this.refuse(res, new StreamConflictError('Conflict: Only one SSE stream is allowed per session'));
    this.followed = 'opening';
    try {
      const followed = await this.cluster!.openStandalone(this.sessionId!, res, {
        afterId,
        primed,
        headers: this.sessionHeaders(),
        keepAliveMs: this.keepAliveMs,
      });
      if (this.closed) return followed.close();
      this.followed = followed;
      res.once('close', () => {
        if (this.followed === followed) this.followed = undefined;
      });
      if (res.destroyed) this.followed = undefined;
    } catch (err) {
      this.followed = undefined;
      writeError(res, err);
    }
  }

  /**
   * The client's messages as seen by this replica: an answer to a request
   * another replica sent goes to that replica; a cancellation also goes to
   * every replica (the request may run on any of them).
   */
  private crossReplicas(msgs: Message[]): Message[] {
    const cluster = this.cluster!;
    const here: Message[] = [];
    for (const m of msgs) {
      if (isResponseMessage(m)) {
        const tagged = taggedRequestId(m.id);
        if (tagged && tagged.tag !== cluster.tag) {
          cluster.forwardResponse(this.sessionId!, tagged.tag, m as JSONRPCMessage);
          continue;
        }
        here.push(tagged ? { ...m, id: tagged.id } : m);
        continue;
      }
      if (m.method === 'notifications/cancelled') cluster.broadcastCancel(this.sessionId!, m as JSONRPCMessage);
      here.push(m);
    }
    return here;
  }

  private tagOutgoing(message: JSONRPCMessage): JSONRPCMessage {
    const m = message as Message;
    const tag = this.cluster!.tag;
    if (isRequestMessage(m)) return { ...m, id: tagRequestId(tag, m.id as RequestId) } as JSONRPCMessage;
    if (m.method === 'notifications/cancelled') {
      const params = m.params as { requestId?: RequestId } | undefined;
      if (params?.requestId !== undefined) return { ...m, params: { ...params, requestId: tagRequestId(tag, params.requestId) } } as unknown as JSONRPCMessage;
    }
    return message;
  }

  private sessionHeaders(): Record<string, string> {
    return this.sessionId === undefined ? {} : { 'mcp-session-id': this.sessionId };
  }

  private streamOptions(mirror?: ConstructorParameters<typeof SseStream>[1]['mirror']): ConstructorParameters<typeof SseStream>[1] {
    return { keepMs: this.replayMs, keepAliveMs: this.keepAliveMs, headers: () => this.sessionHeaders(), mirror };
  }

  /** Answers a request this transport refuses (the status and JSON-RPC code are the error's: api/error-mapping.ts). */
  private refuse(res: ServerResponse, err: GatewayError): void {
    this.onerror?.(err);
    writeError(res, err);
  }
}
