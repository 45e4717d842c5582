/**
 * The client side of MCP streamable HTTP on Node's http/https modules, for
 * `streamable-http` backends.
 *
 * It replaces the SDK's StreamableHTTPClientTransport on the proxy hot path.
 * That class makes every call through fetch (undici): a web Headers object,
 * a Request, web streams for the body, a zod parse of every message, and an
 * abort listener added to one long-lived AbortSignal per call that undici
 * drops only at garbage collection (so the listener list, walked on every
 * call, keeps growing under load). Here a POST is one `http.request` on a
 * keep-alive agent. Behaviour follows the SDK's (v2) transport:
 *
 * - Mcp-Session-Id is taken from the answer to `initialize` and sent on every
 *   request, and Mcp-Protocol-Version once the client negotiated it;
 *   configured headers are added to every request (and may override those).
 * - A request carrying the 2026-07-28 `_meta` envelope also carries the
 *   headers its body names (MCP-Protocol-Version, Mcp-Method, Mcp-Name:
 *   ./mcp-request-headers.ts), plus the caller's per-request headers
 *   (`Mcp-Param-*`), which never replace a header the transport owns. Such a
 *   connection has no session and no GET stream; each request has its own
 *   answer stream (`hasPerRequestStream`), and aborting its `requestSignal`
 *   ends that stream (the revision's cancellation). A 400 whose body is the
 *   JSON-RPC error of that request is delivered as its answer.
 * - An answer is plain JSON or an SSE stream (events `message` or unnamed;
 *   `id`, `retry` and comments understood), parsed by eventsource-parser as
 *   in the SDK. 202 answers notifications; after
 *   `notifications/initialized` the standalone GET stream is opened (405 means
 *   the server offers none).
 * - A GET stream that ends, or a POST stream that ends after an event id but
 *   before its answer, is resumed with Last-Event-ID: at most 2 tries, 1 s
 *   growing 1.5x (or the server's `retry`).
 * - Same-origin redirects are followed as by the SDK (at most 5): 307/308
 *   for any request, 301/302/303 for a GET; never one that adds credentials.
 *   Other redirects are reported, not followed. An HTTP error status rejects
 *   the send with the SDK's SdkHttpError (`status`, and the body as `text`).
 * - close() aborts everything in flight; terminateSession() sends DELETE.
 *
 * - OAuth (`auth`): the SDK's OAuthClientProvider supplies the bearer token
 *   of every request; a 401, or a 403 `insufficient_scope`, runs the SDK's
 *   `auth()` once with the challenge's resource metadata and scope, then the
 *   request is sent again (a second refusal is the answer).
 */
import http, { type IncomingMessage, type ClientRequest, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import {
  auth as authorize,
  extractWWWAuthenticateParams,
  SdkErrorCode,
  SdkHttpError,
  UnauthorizedError,
  type FetchLike,
  type JSONRPCMessage,
  type OAuthClientProvider,
  type TransportSendOptions,
} from '@modelcontextprotocol/client';
import { createParser } from 'eventsource-parser';
import { isRequestMessage, mediaType, toJsonRpcMessage } from './json-rpc.js';
import type { BackendTransport } from './backend-transport.js';
import { bodyDerivedHeaders, RESERVED_REQUEST_HEADERS } from './mcp-request-headers.js';

/** Outgoing OAuth of a backend: the SDK's provider and `auth()` do the work; the transport only asks them. */
export interface HttpAuth {
  provider: OAuthClientProvider;
  /** The fetch of the authorization calls (resource metadata, authorization server, token endpoint). */
  fetch?: FetchLike;
  /** Told of every 401 or 403 answer before it is acted on (the backend's challenge). */
  onChallenge?: (status: 401 | 403, response: Response) => void;
  /** Finds the authorization server before `auth()` runs, when none is known yet (runtime/auth/provider-base.ts). */
  discover?: (resourceMetadataUrl: URL | undefined) => Promise<void>;
}

export interface NodeStreamableHttpClientOptions {
  /** Sent with every request (e.g. Authorization). */
  headers?: Record<string, string>;
  auth?: HttpAuth;
  /**
   * The backend acts for each caller (`auth.on_behalf_of`): a request may bring
   * its own `Authorization` (the caller's exchanged token), which then replaces
   * any configured one for that request only.
   */
  callerAuthorization?: boolean;
  reconnection?: { initialReconnectionDelay: number; maxReconnectionDelay: number; reconnectionDelayGrowFactor: number; maxRetries: number };
}

interface SseOptions {
  resumptionToken?: string;
  onresumptiontoken?: (token: string) => void;
  replayMessageId?: string | number;
  /** Ends this stream on purpose (a 2026-07-28 cancellation, or a listen stream closed). */
  requestSignal?: AbortSignal;
  /** Told when this stream ends for any other reason (the server closed it, the network dropped it). */
  onRequestStreamEnd?: () => void;
}

const DEFAULT_RECONNECTION = { initialReconnectionDelay: 1000, maxReconnectionDelay: 30_000, reconnectionDelayGrowFactor: 1.5, maxRetries: 2 };
const MAX_REDIRECTS = 5;
/**
 * Idle timeout of a kept-alive connection. Node's agent retires an idle
 * connection a second before the Keep-Alive timeout a server announces, but
 * only when the agent has a timeout of its own to lower (without one, the
 * hint is ignored and a call can be sent on a connection the server is just
 * closing: "socket hang up"). Active requests are not affected: the agent
 * destroys only idle sockets on timeout.
 */
const AGENT_IDLE_TIMEOUT_MS = 60_000;
/** A byte order mark starting a body: fetch's UTF-8 decode (the SDK's transport) drops it, Node's decoder does not. */
const BOM = 0xfeff;

export class NodeStreamableHttpClientTransport implements BackendTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Each request has its own answer (a POST), so a request can be cancelled by ending it (2026-07-28). */
  readonly hasPerRequestStream = true;

  private readonly url: URL;
  private readonly extraHeaders: Record<string, string>;
  private readonly auth?: HttpAuth;
  private readonly agent: http.Agent;
  private readonly requestFn: typeof http.request;
  private readonly reconnection: NonNullable<NodeStreamableHttpClientOptions['reconnection']>;
  private readonly target: http.RequestOptions;
  private _sessionId?: string;
  private _protocolVersion?: string;
  /** Headers of every request, rebuilt when the session id or protocol version changes. */
  private baseHeaders: Record<string, string> = {};
  private readonly callerAuthorization: boolean;
  private started = false;
  private closed = false;
  private readonly inFlight = new Set<ClientRequest>();
  private readonly responses = new Set<IncomingMessage>();
  private reconnectTimer?: NodeJS.Timeout;
  private serverRetryMs?: number;

  constructor(url: URL, opts: NodeStreamableHttpClientOptions = {}) {
    this.url = url;
    this.extraHeaders = opts.headers ?? {};
    this.auth = opts.auth;
    this.callerAuthorization = opts.callerAuthorization === true;
    this.reconnection = opts.reconnection ?? DEFAULT_RECONNECTION;
    const secure = url.protocol === 'https:';
    this.requestFn = secure ? https.request : http.request;
    const agentOptions = { keepAlive: true, timeout: AGENT_IDLE_TIMEOUT_MS };
    this.agent = secure ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.target = urlToRequestOptions(url);
    this.rebuildHeaders();
  }

  get sessionId(): string | undefined {
    return this._sessionId;
  }

  get protocolVersion(): string | undefined {
    return this._protocolVersion;
  }

  setProtocolVersion(version: string): void {
    this._protocolVersion = version;
    this.rebuildHeaders();
  }

  async start(): Promise<void> {
    if (this.started) {
      throw new Error('StreamableHTTPClientTransport already started! If using Client class, note that connect() calls start() automatically.');
    }
    this.started = true;
  }

  async send(message: JSONRPCMessage | JSONRPCMessage[], options?: TransportSendOptions): Promise<void> {
    const requestSignal = options?.requestSignal;
    try {
      if (options?.resumptionToken) {
        const m = message as { id?: string | number; method?: string };
        const replayMessageId = m.method !== undefined && m.id !== undefined ? m.id : undefined;
        this.openSse({ resumptionToken: options.resumptionToken, replayMessageId, requestSignal }).catch((err) => this.onerror?.(err as Error));
        return;
      }
      const body = JSON.stringify(message);
      const headers: Record<string, string> = { ...this.baseHeaders, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const derived = Array.isArray(message) ? undefined : bodyDerivedHeaders(message);
      if (derived) Object.assign(headers, derived);
      // A new session starts without a session id; a handshake's answer brings the one to keep.
      const handshake = isInitialize(message);
      if (handshake) delete headers['mcp-session-id'];
      for (const [name, value] of Object.entries(options?.headers ?? {})) {
        const key = name.toLowerCase();
        if (!RESERVED_REQUEST_HEADERS.has(key) || (key === 'authorization' && this.callerAuthorization)) headers[key] = value;
      }
      const res = await this.authorized('POST', headers, body, requestSignal);
      const status = res.statusCode ?? 0;
      if (handshake && status >= 200 && status < 300) this.takeSessionId(res);
      if (status < 200 || status >= 300) {
        const text = await readText(res).catch(() => null);
        // A 2026-07-28 server answers a request it refuses (a header mismatch, an unsupported revision) with 400 and the JSON-RPC error: that is the request's answer.
        if (status === 400 && derived && text !== null && this.deliverErrorAnswer(text, message as { id?: unknown })) return;
        throw new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${redirectNote(res, this.url) ?? text}`, {
          status,
          statusText: res.statusMessage,
          text,
        });
      }
      if (status === 202) {
        res.resume();
        if (!Array.isArray(message) && (message as { method?: string }).method === 'notifications/initialized') {
          this.openSse({}).catch((err) => this.onerror?.(err as Error));
        }
        return;
      }
      const messages = Array.isArray(message) ? message : [message];
      const hasRequests = messages.some((m) => isRequestMessage(m));
      if (!hasRequests) {
        res.resume();
        return;
      }
      const contentType = mediaType(res.headers['content-type']);
      if (contentType === 'text/event-stream') {
        this.readSse(res, { onresumptiontoken: options?.onresumptiontoken, requestSignal, onRequestStreamEnd: options?.onRequestStreamEnd }, false);
      } else if (contentType === 'application/json') {
        const data = JSON.parse(await readText(res)) as unknown;
        const replies = Array.isArray(data) ? data.map(toJsonRpcMessage) : [toJsonRpcMessage(data)];
        for (const reply of replies) this.onmessage?.(reply);
      } else {
        res.resume();
        throw new SdkHttpError(SdkErrorCode.ClientHttpUnexpectedContent, `Unexpected content type: ${res.headers['content-type']}`, {
          status,
          contentType: res.headers['content-type'],
        });
      }
    } catch (error) {
      // A stream ended on purpose is no transport error; the caller still learns that the send did not complete.
      if (!requestSignal?.aborted) this.onerror?.(error as Error);
      throw error;
    }
  }

  /** Sends DELETE to end the session; 405 means the server does not support that, which is fine. */
  async terminateSession(): Promise<void> {
    if (!this._sessionId) return;
    try {
      const res = await this.authorized('DELETE', { ...this.baseHeaders });
      res.resume();
      const status = res.statusCode ?? 0;
      if ((status < 200 || status >= 300) && status !== 405) {
        throw new SdkHttpError(
          SdkErrorCode.ClientHttpFailedToTerminateSession,
          `Failed to terminate session: ${redirectNote(res, this.url) ?? res.statusMessage}`,
          { status, statusText: res.statusMessage },
        );
      }
      this._sessionId = undefined;
      this.rebuildHeaders();
    } catch (error) {
      this.onerror?.(error as Error);
      throw error;
    }
  }

  /** Resumes an SSE stream from an event id (GET with Last-Event-ID). */
  async resumeStream(lastEventId: string, options?: { onresumptiontoken?: (token: string) => void }): Promise<void> {
    await this.openSse({ resumptionToken: lastEventId, onresumptiontoken: options?.onresumptiontoken });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const aborted = abortError();
    for (const req of this.inFlight) req.destroy(aborted);
    for (const res of this.responses) res.destroy(aborted);
    this.inFlight.clear();
    this.responses.clear();
    this.agent.destroy();
    this.onclose?.();
  }

  // --- internals ---

  private rebuildHeaders(): void {
    const h: Record<string, string> = {};
    if (this._sessionId) h['mcp-session-id'] = this._sessionId;
    if (this._protocolVersion) h['mcp-protocol-version'] = this._protocolVersion;
    for (const [k, v] of Object.entries(this.extraHeaders)) h[k.toLowerCase()] = v;
    this.baseHeaders = h;
  }

  private takeSessionId(res: IncomingMessage): void {
    const id = res.headers['mcp-session-id'];
    const next = typeof id === 'string' && id ? id : undefined;
    if (next !== this._sessionId) {
      this._sessionId = next;
      this.rebuildHeaders();
    }
  }

  /** Delivers a 400's body as the answer to `message` when it is that request's JSON-RPC error; says whether it was. */
  private deliverErrorAnswer(text: string, message: { id?: unknown }): boolean {
    try {
      const reply = toJsonRpcMessage(JSON.parse(text));
      if (!('error' in reply) || reply.id !== message.id) return false;
      this.onmessage?.(reply);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * A request with the OAuth bearer token, when the backend uses OAuth. A 401
   * (or a 403 insufficient_scope) runs the SDK's auth() once: a refresh, a new
   * client_credentials token, or the provider's AuthorizationRequiredError when
   * only the user can help. Without OAuth it is a plain request.
   */
  private async authorized(method: string, headers: OutgoingHttpHeaders, body?: string, signal?: AbortSignal): Promise<IncomingMessage> {
    const auth = this.auth;
    if (!auth) return this.request(method, headers, body, signal);
    for (let attempt = 0; ; attempt++) {
      const tokens = await auth.provider.tokens();
      const res = await this.request(method, tokens ? { ...headers, authorization: `Bearer ${tokens.access_token}` } : headers, body, signal);
      const status = res.statusCode;
      if (status !== 401 && status !== 403) return res;
      const challenge = challengeOf(res);
      auth.onChallenge?.(status, challenge);
      const { resourceMetadataUrl, scope, error } = extractWWWAuthenticateParams(challenge);
      // A 403 for another reason is not about the token; a second refusal after auth() is the answer (no loop).
      if ((status === 403 && error !== 'insufficient_scope') || attempt > 0) return res;
      res.resume();
      await auth.discover?.(resourceMetadataUrl);
      const result = await authorize(auth.provider, { serverUrl: this.url, resourceMetadataUrl, scope, fetchFn: auth.fetch });
      if (result !== 'AUTHORIZED') throw new UnauthorizedError();
    }
  }

  /** One HTTP request; resolves with the response once its headers are in (redirects followed as by the SDK). */
  private async request(method: string, headers: OutgoingHttpHeaders, body?: string, signal?: AbortSignal): Promise<IncomingMessage> {
    let url = this.url;
    for (let hop = 0; ; hop++) {
      const res = await this.requestOnce(url, method, headers, body, signal);
      const target = hop < MAX_REDIRECTS ? followableRedirect(res, url, method) : undefined;
      if (!target) return res;
      res.resume();
      url = target;
    }
  }

  private requestOnce(url: URL, method: string, headers: OutgoingHttpHeaders, body?: string, signal?: AbortSignal): Promise<IncomingMessage> {
    if (this.closed || signal?.aborted) return Promise.reject(abortError());
    return new Promise((resolve, reject) => {
      const h = body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) };
      // Plain options rather than the URL: Node would convert the URL on every request.
      const target = url === this.url ? this.target : urlToRequestOptions(url);
      const req = this.requestFn({ ...target, method, headers: h, agent: this.agent });
      this.inFlight.add(req);
      // Ending the request on purpose ends its answer stream too, whenever it comes.
      let response: IncomingMessage | undefined;
      const onAbort = () => (response ?? req).destroy(abortError());
      signal?.addEventListener('abort', onAbort, { once: true });
      req.once('response', (res) => {
        this.inFlight.delete(req);
        this.responses.add(res);
        response = res;
        res.once('close', () => {
          this.responses.delete(res);
          signal?.removeEventListener('abort', onAbort);
        });
        resolve(res);
      });
      req.once('error', (err) => {
        this.inFlight.delete(req);
        signal?.removeEventListener('abort', onAbort);
        // No retry, as with fetch: a POST may have reached the server. Idle kept-alive
        // sockets are retired before the server's announced Keep-Alive timeout (see AGENT_IDLE_TIMEOUT_MS).
        reject(this.closed || signal?.aborted ? abortError() : err);
      });
      req.end(body);
    });
  }

  private async openSse(options: SseOptions): Promise<void> {
    try {
      const headers: OutgoingHttpHeaders = { ...this.baseHeaders, accept: 'text/event-stream' };
      if (options.resumptionToken) headers['last-event-id'] = options.resumptionToken;
      const res = await this.authorized('GET', headers, undefined, options.requestSignal);
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        res.resume();
        // 405: the server offers no standalone stream; that is allowed.
        if (status === 405) return;
        throw new SdkHttpError(SdkErrorCode.ClientHttpFailedToOpenStream, `Failed to open SSE stream: ${redirectNote(res, this.url) ?? res.statusMessage}`, {
          status,
          statusText: res.statusMessage,
        });
      }
      this.readSse(res, options, true);
    } catch (error) {
      this.onerror?.(error as Error);
      throw error;
    }
  }

  private readSse(res: IncomingMessage, options: SseOptions, reconnectable: boolean): void {
    const { onresumptiontoken, replayMessageId, requestSignal, onRequestStreamEnd } = options;
    const onPurpose = () => this.closed || requestSignal?.aborted === true;
    let lastEventId: string | undefined;
    let primed = false;
    let answered = false;
    const parser = createParser({
      onEvent: (event) => {
        if (event.id !== undefined) {
          lastEventId = event.id;
          primed = true;
          onresumptiontoken?.(event.id);
        }
        if (!event.data) return;
        if (event.event && event.event !== 'message') return;
        try {
          const message = toJsonRpcMessage(JSON.parse(event.data));
          if (('result' in message || 'error' in message) && message.id !== undefined) {
            answered = true;
            if (replayMessageId !== undefined) message.id = replayMessageId;
          }
          this.onmessage?.(message);
        } catch (error) {
          this.onerror?.(error as Error);
        }
      },
      onRetry: (retryMs) => {
        this.serverRetryMs = retryMs;
      },
    });
    res.setEncoding('utf8');
    let first = true;
    res.on('data', (chunk: string) => {
      // A byte order mark may start the stream: fetch's UTF-8 decode (the SDK's transport) drops it, Node's decoder does not.
      if (first && chunk.length > 0) {
        first = false;
        if (chunk.charCodeAt(0) === BOM) chunk = chunk.slice(1);
      }
      parser.feed(chunk);
    });
    let ended = false;
    const finish = (error?: Error) => {
      if (ended) return;
      ended = true;
      if (onPurpose()) return;
      if (error) this.onerror?.(new Error(`SSE stream disconnected: ${error}`));
      if ((reconnectable || primed) && !answered) {
        this.scheduleReconnect({ resumptionToken: lastEventId, onresumptiontoken, replayMessageId, requestSignal, onRequestStreamEnd }, 0);
      } else {
        onRequestStreamEnd?.();
      }
    };
    res.once('end', () => finish());
    res.once('error', (err) => finish(err));
    res.once('aborted', () => finish(new Error('aborted')));
  }

  private scheduleReconnect(options: SseOptions, attempt: number): void {
    const { maxRetries, initialReconnectionDelay, reconnectionDelayGrowFactor, maxReconnectionDelay } = this.reconnection;
    if (attempt >= maxRetries) {
      this.onerror?.(new Error(`Maximum reconnection attempts (${maxRetries}) exceeded.`));
      options.onRequestStreamEnd?.();
      return;
    }
    const delay = this.serverRetryMs ?? Math.min(initialReconnectionDelay * Math.pow(reconnectionDelayGrowFactor, attempt), maxReconnectionDelay);
    this.reconnectTimer = setTimeout(() => {
      if (this.closed || options.requestSignal?.aborted) return;
      this.openSse(options).catch((error) => {
        this.onerror?.(new Error(`Failed to reconnect SSE stream: ${error instanceof Error ? error.message : String(error)}`));
        this.scheduleReconnect(options, attempt + 1);
      });
    }, delay);
    this.reconnectTimer.unref();
  }
}

function urlToRequestOptions(url: URL): http.RequestOptions {
  return {
    protocol: url.protocol,
    // An IPv6 literal is bracketed in a URL, not in a host name.
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port || undefined,
    path: `${url.pathname}${url.search}`,
    ...(url.username || url.password ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` } : {}),
  };
}

/** The parts of a refusal the SDK's challenge parser reads, as the web Response it expects. */
function challengeOf(res: IncomingMessage): Response {
  const header = res.headers['www-authenticate'];
  return new Response(null, { status: res.statusCode, headers: header ? { 'www-authenticate': header } : {} });
}

function isInitialize(message: JSONRPCMessage | JSONRPCMessage[]): boolean {
  return (Array.isArray(message) ? message : [message]).some((m) => (m as { method?: string }).method === 'initialize');
}

function readText(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => (text += c));
    res.once('end', () => resolve(text.charCodeAt(0) === BOM ? text.slice(1) : text));
    res.once('error', reject);
    res.once('aborted', () => reject(abortError()));
  });
}

function redirectTarget(res: IncomingMessage, from: URL): URL | undefined {
  const location = res.headers.location;
  if (!location) return undefined;
  try {
    return new URL(location, from);
  } catch {
    return undefined;
  }
}

/**
 * Where a redirect leads if it is to be followed, as the SDK's fetchWithinOrigin
 * decides: the same origin; 307/308 keep the method and body, so any request;
 * 301/302/303 only for a GET (fetch would turn a POST into a GET); and never
 * a target that adds user name or password. An http-to-https upgrade, which the
 * SDK also follows, is not: this transport speaks one protocol.
 */
function followableRedirect(res: IncomingMessage, from: URL, method: string): URL | undefined {
  const status = res.statusCode ?? 0;
  if (status !== 307 && status !== 308 && !((status === 301 || status === 302 || status === 303) && method === 'GET')) return undefined;
  const target = redirectTarget(res, from);
  if (!target || target.origin !== from.origin) return undefined;
  const addsCredentials = (target.username || target.password) && (target.username !== from.username || target.password !== from.password);
  return addsCredentials ? undefined : target;
}

/** For a redirect that was not followed: where it pointed (no credentials, query or fragment). */
function redirectNote(res: IncomingMessage, from: URL): string | undefined {
  const status = res.statusCode ?? 0;
  if (status < 300 || status >= 400) return undefined;
  const target = redirectTarget(res, from);
  if (!target) return undefined;
  target.username = target.password = target.search = target.hash = '';
  if (target.protocol === 'http:' && from.protocol === 'https:') {
    target.protocol = 'https:';
    return `Redirect to plain http not followed; try ${target.href} instead`;
  }
  return `Redirect to ${target.href} not followed`;
}

function abortError(): Error {
  const err = new Error('This operation was aborted');
  err.name = 'AbortError';
  return err;
}
