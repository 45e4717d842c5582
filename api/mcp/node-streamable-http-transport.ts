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
 * It is the one layer that checks the protocol (media types, message shape,
 * batches, the session header and protocol version): the /mcp routes only
 * find the session a request belongs to, and answer a POST that names none
 * and does not initialize one with `refuseSessionless()`, which runs the same
 * checks first.
 *
 * Not implemented because the gateway does not use them: resumability (event
 * store, Last-Event-ID), stateless mode, DNS-rebinding host/origin checks.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type MessageExtraInfo, type RequestId, type RequestInfo } from '@modelcontextprotocol/sdk/types.js';
import { isJsonRpcMessage, isRequestMessage, isResponseMessage, mediaType, serializeMessage, unanswerableReason } from '../../runtime/transports/json-rpc.js';
import { jsonRpcErrorBody } from '../error-mapping.js';
import { RpcCode } from '../../schemas/json-rpc-codes.js';

export interface NodeStreamableHttpOptions {
  sessionIdGenerator: () => string;
  onsessioninitialized?: (sessionId: string) => void | Promise<void>;
  onsessionclosed?: (sessionId: string) => void | Promise<void>;
  /** The client closed a POST's response before every request on it was answered: these ids will never be read. */
  onrequestsabandoned?: (ids: RequestId[]) => void;
  /** SSE keep-alive comment interval (default 15 s, as in the SDK); 0 turns it off. */
  keepAliveMs?: number;
}

const MAX_BATCH_SIZE = 100;
const DEFAULT_KEEP_ALIVE_MS = 15_000;
/**
 * A request still unanswered after this long gets SSE headers, so a slow tool
 * call never leaves the client waiting for response headers (undici gives up
 * on headers after 300 s by default).
 */
const SSE_AFTER_MS = 1_000;

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** One HTTP response that answers one POST (one request, or a batch). */
interface PostStream {
  res: ServerResponse;
  /** Ids of the requests this response must answer. */
  ids: RequestId[];
  /** Answers collected so far, in arrival order. */
  answers: JSONRPCMessage[];
  batch: boolean;
  sse: boolean;
  done: boolean;
  timer?: NodeJS.Timeout;
  keepAlive?: NodeJS.Timeout;
}

type Message = Record<string, unknown>;

const isInitialize = (m: Message): boolean => m.method === 'initialize' && m.id !== undefined;

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
  private readonly streams = new Map<RequestId, PostStream>();
  /** Requests whose client went away; their answers are dropped quietly. */
  private readonly abandoned = new Set<RequestId>();
  private standalone?: { res: ServerResponse; keepAlive?: NodeJS.Timeout };
  private readonly keepAliveMs: number;

  constructor(private readonly opts: NodeStreamableHttpOptions) {
    this.keepAliveMs = opts.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    this.onsessioninitialized = opts.onsessioninitialized;
    this.onsessionclosed = opts.onsessionclosed;
    this.onrequestsabandoned = opts.onrequestsabandoned;
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
    if ('refusal' in checked) return writeRefusal(res, checked.refusal);
    writeJson(res, 400, jsonRpcErrorBody(RpcCode.ServerError, 'Bad Request: no session; the first request must be initialize'));
  }

  /** A POST of this session (or the initialize that creates it), with its parsed body. */
  async handlePost(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, body: unknown): Promise<void> {
    if (this.closed) return this.fail(res, 404, RpcCode.SessionNotFound, 'Session not found');
    const checked = checkPost(req, body);
    if ('refusal' in checked) {
      this.onerror?.(new Error(checked.refusal.message));
      return writeRefusal(res, checked.refusal);
    }
    const { messages: msgs, batch } = checked;

    const hasInit = msgs.some(isInitialize);
    if (hasInit) {
      if (this.initialized && this.sessionId !== undefined) return this.fail(res, 400, RpcCode.InvalidRequest, 'Invalid Request: Server already initialized');
      if (msgs.length > 1) return this.fail(res, 400, RpcCode.InvalidRequest, 'Invalid Request: Only one initialization request is allowed');
      this.sessionId = this.opts.sessionIdGenerator();
      this.initialized = true;
      await this.onsessioninitialized?.(this.sessionId);
    } else {
      const problem = this.checkSession(req, res);
      if (problem) return;
    }
    if (this.closed) return this.fail(res, 404, RpcCode.SessionNotFound, 'Session not found');

    const extra = messageExtra(req);
    const ids: RequestId[] = [];
    for (const m of msgs) if (isRequestMessage(m)) ids.push(m.id as RequestId);
    const duplicates = ids.filter((id, i) => this.streams.has(id) || ids.indexOf(id) !== i);
    if (duplicates.length > 0) return this.refuseDuplicates(res, duplicates, batch);
    const unanswerable = msgs.map(unanswerableReason).find((r) => r !== undefined);
    if (unanswerable !== undefined) {
      // The SDK would drop it silently; no request may go unanswered.
      const id = batch ? null : ((msgs[0]!.id as RequestId | undefined) ?? null);
      return writeJson(res, id === null ? 400 : 200, { jsonrpc: '2.0', id, error: unanswerable });
    }
    if (ids.length === 0) {
      res.writeHead(202).end();
      for (const m of msgs) this.onmessage?.(m as JSONRPCMessage, extra);
      return;
    }
    const stream: PostStream = { res, ids, answers: [], batch, sse: false, done: false };
    for (const id of ids) this.streams.set(id, stream);
    stream.timer = setTimeout(() => this.toSse(stream), SSE_AFTER_MS).unref();
    res.once('close', () => this.dropStream(stream));
    for (const m of msgs) this.onmessage?.(m as JSONRPCMessage, extra);
  }

  /** The GET that opens this session's standalone SSE stream. */
  handleGet(req: IncomingMessage, res: ServerResponse): void {
    if (this.closed) return this.fail(res, 404, RpcCode.SessionNotFound, 'Session not found');
    if (!req.headers.accept?.includes('text/event-stream')) {
      return this.fail(res, 406, RpcCode.ServerError, 'Not Acceptable: Client must accept text/event-stream');
    }
    if (this.checkSession(req, res)) return;
    if (this.standalone) return this.fail(res, 409, RpcCode.ServerError, 'Conflict: Only one SSE stream is allowed per session');
    res.writeHead(200, this.sseHeaders());
    res.flushHeaders();
    const entry: { res: ServerResponse; keepAlive?: NodeJS.Timeout } = { res, keepAlive: this.armKeepAlive(res) };
    this.standalone = entry;
    res.once('close', () => {
      clearInterval(entry.keepAlive);
      if (this.standalone === entry) this.standalone = undefined;
    });
  }

  /** The DELETE that ends this session. */
  async handleDelete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.closed) return this.fail(res, 404, RpcCode.SessionNotFound, 'Session not found');
    if (this.checkSession(req, res)) return;
    try {
      await this.onsessionclosed?.(this.sessionId!);
      res.writeHead(200).end();
    } finally {
      await this.close();
    }
  }

  /** Session and protocol-version checks of every request after initialize; answers and returns true on failure. */
  private checkSession(req: IncomingMessage, res: ServerResponse): boolean {
    if (!this.initialized) {
      this.fail(res, 400, RpcCode.ServerError, 'Bad Request: Server not initialized');
      return true;
    }
    const id = req.headers['mcp-session-id'];
    if (!id) {
      this.fail(res, 400, RpcCode.ServerError, 'Bad Request: Mcp-Session-Id header is required');
      return true;
    }
    if (id !== this.sessionId) {
      this.fail(res, 404, RpcCode.SessionNotFound, 'Session not found');
      return true;
    }
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) {
      const message = `Bad Request: Unsupported protocol version: ${String(version)} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`;
      this.fail(res, 400, RpcCode.ServerError, message);
      return true;
    }
    return false;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as Message;
    const response = isResponseMessage(m);
    const requestId = response ? (m.id as RequestId) : options?.relatedRequestId;
    if (requestId === undefined) {
      if (response) throw new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request');
      const standalone = this.standalone;
      if (standalone) writeEvent(standalone.res, message);
      return;
    }
    const stream = this.streams.get(requestId);
    if (!stream) {
      // Closed, or its client went away: nobody will read it.
      if (this.closed) return;
      if (this.abandoned.has(requestId)) {
        if (response) this.abandoned.delete(requestId);
        return;
      }
      throw new Error(`No connection established for request ID: ${String(requestId)}`);
    }
    if (!response) {
      // Something precedes the answer: this response becomes an SSE stream.
      this.toSse(stream);
      writeEvent(stream.res, message);
      return;
    }
    stream.answers.push(message);
    if (stream.sse) writeEvent(stream.res, message);
    if (stream.answers.length < stream.ids.length) return;
    // Every request of this POST is answered: finish the response.
    this.finish(stream);
    if (!stream.sse) {
      const text = stream.batch ? `[${stream.answers.map(serializeMessage).join(',')}]` : serializeMessage(stream.answers[0]);
      writeJsonText(stream.res, 200, text, this.sessionId === undefined ? undefined : { 'mcp-session-id': this.sessionId });
    } else {
      stream.res.end();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stream of new Set(this.streams.values())) {
      this.finish(stream);
      if (!stream.res.headersSent) writeJson(stream.res, 404, jsonRpcErrorBody(RpcCode.SessionNotFound, 'Session closed'));
      else stream.res.end();
    }
    this.streams.clear();
    const standalone = this.standalone;
    this.standalone = undefined;
    if (standalone) {
      clearInterval(standalone.keepAlive);
      standalone.res.end();
    }
    this.onclose?.();
  }

  /** Switches a POST response to SSE (headers now; every later message is an event). */
  private toSse(stream: PostStream): void {
    if (stream.sse || stream.done) return;
    stream.sse = true;
    clearTimeout(stream.timer);
    stream.timer = undefined;
    const res = stream.res;
    if (res.writableEnded || res.destroyed) return;
    res.writeHead(200, this.sseHeaders());
    res.flushHeaders();
    stream.keepAlive = this.armKeepAlive(res);
    // Answers that arrived before the switch (a batch answered in part) go out first.
    for (const a of stream.answers) writeEvent(res, a);
  }

  private finish(stream: PostStream): void {
    stream.done = true;
    clearTimeout(stream.timer);
    clearInterval(stream.keepAlive);
    for (const id of stream.ids) if (this.streams.get(id) === stream) this.streams.delete(id);
  }

  /** The client went away before every answer was written: forget the stream and say which requests were left. */
  private dropStream(stream: PostStream): void {
    if (stream.done) return;
    this.finish(stream);
    const answered = new Set(stream.answers.map((a) => (a as Message).id as RequestId));
    const left = stream.ids.filter((id) => !answered.has(id));
    for (const id of left) this.abandoned.add(id);
    if (left.length > 0) this.onrequestsabandoned?.(left);
  }

  /**
   * A request id already in flight in this session (or twice in one batch):
   * refused with -32600 naming it; the request already in flight is untouched.
   */
  private refuseDuplicates(res: ServerResponse, ids: RequestId[], batch: boolean): void {
    const message = `Invalid Request: request id ${ids.map((id) => JSON.stringify(id)).join(', ')} is already in flight in this session`;
    this.onerror?.(new Error(message));
    const body = { jsonrpc: '2.0', id: batch ? null : ids[0], error: { code: RpcCode.InvalidRequest, message } };
    writeJson(res, 400, body);
  }

  private sseHeaders(): Record<string, string> {
    return this.sessionId === undefined ? SSE_HEADERS : { ...SSE_HEADERS, 'mcp-session-id': this.sessionId };
  }

  private armKeepAlive(res: ServerResponse): NodeJS.Timeout | undefined {
    if (!(this.keepAliveMs > 0)) return undefined;
    const timer = setInterval(() => {
      if (res.writableEnded || res.destroyed) clearInterval(timer);
      else res.write(': keepalive\n\n');
    }, this.keepAliveMs);
    timer.unref();
    return timer;
  }

  private fail(res: ServerResponse, status: number, code: number, message: string): void {
    this.onerror?.(new Error(message));
    writeJson(res, status, jsonRpcErrorBody(code, message));
  }
}

/** Why a POST is refused before any message reaches the session: an HTTP status and a JSON-RPC error. */
interface Refusal {
  status: number;
  code: number;
  message: string;
}

/**
 * The checks of every POST that need no session: media types, the body's
 * JSON-RPC shape and batch size. Either the messages, or why not.
 */
function checkPost(req: IncomingMessage, body: unknown): { messages: Message[]; batch: boolean } | { refusal: Refusal } {
  const refuse = (status: number, code: number, message: string) => ({ refusal: { status, code, message } });
  const accept = req.headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    return refuse(406, RpcCode.ServerError, 'Not Acceptable: Client must accept both application/json and text/event-stream');
  }
  if (mediaType(req.headers['content-type']) !== 'application/json') {
    return refuse(415, RpcCode.ServerError, 'Unsupported Media Type: Content-Type must be application/json');
  }
  if (body === undefined) return refuse(400, RpcCode.ParseError, 'Parse error: Invalid JSON');
  const batch = Array.isArray(body);
  if (batch && body.length === 0) return refuse(400, RpcCode.InvalidRequest, 'Invalid Request: empty batch');
  if (batch && body.length > MAX_BATCH_SIZE) return refuse(400, RpcCode.InvalidRequest, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
  const messages = (batch ? body : [body]) as unknown[];
  if (!messages.every(isJsonRpcMessage)) return refuse(400, RpcCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message');
  return { messages: messages as unknown as Message[], batch };
}

function writeRefusal(res: ServerResponse, r: Refusal): void {
  writeJson(res, r.status, jsonRpcErrorBody(r.code, r.message));
}

function writeJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  writeJsonText(res, status, JSON.stringify(body), headers);
}

function writeJsonText(res: ServerResponse, status: number, text: string, headers?: Record<string, string>): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function writeEvent(res: ServerResponse, message: JSONRPCMessage): void {
  if (res.writableEnded || res.destroyed) return;
  res.write(`event: message\ndata: ${serializeMessage(message)}\n\n`);
}

/** What the SDK hands handlers as `extra.requestInfo` and `extra.authInfo`; the URL is built only if read. */
function messageExtra(req: IncomingMessage & { auth?: AuthInfo }): MessageExtraInfo {
  let url: URL | undefined;
  const requestInfo = {
    headers: req.headers,
    get url(): URL {
      url ??= new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
      return url;
    },
  } as RequestInfo;
  return req.auth ? { requestInfo, authInfo: req.auth } : { requestInfo };
}
