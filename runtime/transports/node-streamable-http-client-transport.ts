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
 * keep-alive agent. Behaviour follows the SDK's transport:
 *
 * - Mcp-Session-Id is taken from responses and sent on every request, and
 *   Mcp-Protocol-Version once the client negotiated it; configured headers
 *   are added to every request (and may override those).
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
 *   the send with the SDK's StreamableHTTPError (code = status).
 * - close() aborts everything in flight; terminateSession() sends DELETE.
 *
 * - OAuth (`auth`): the SDK's OAuthClientProvider supplies the bearer token
 *   of every request; a 401, or a 403 `insufficient_scope`, runs the SDK's
 *   `auth()` once with the challenge's resource metadata and scope, then the
 *   request is sent again (a second refusal is the answer).
 */
import http, { type IncomingMessage, type ClientRequest, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { auth as authorize, extractWWWAuthenticateParams, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createParser } from 'eventsource-parser';
import { isRequestMessage, mediaType, toJsonRpcMessage } from './json-rpc.js';
import type { BackendTransport } from './backend-transport.js';

/** Outgoing OAuth of a backend: the SDK's provider and `auth()` do the work; the transport only asks them. */
export interface HttpAuth {
  provider: OAuthClientProvider;
  /** The fetch of the authorization calls (resource metadata, authorization server, token endpoint). */
  fetch?: FetchLike;
  /** Told of every 401 or 403 answer before it is acted on (the backend's challenge). */
  onChallenge?: (status: 401 | 403, response: Response) => void;
}

export interface NodeStreamableHttpClientOptions {
  /** Sent with every request (e.g. Authorization). */
  headers?: Record<string, string>;
  auth?: HttpAuth;
  reconnection?: { initialReconnectionDelay: number; maxReconnectionDelay: number; reconnectionDelayGrowFactor: number; maxRetries: number };
}

interface SseOptions {
  resumptionToken?: string;
  onresumptiontoken?: (token: string) => void;
  replayMessageId?: string | number;
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
    try {
      if (options?.resumptionToken) {
        const m = message as { id?: string | number; method?: string };
        const replayMessageId = m.method !== undefined && m.id !== undefined ? m.id : undefined;
        this.openSse({ resumptionToken: options.resumptionToken, replayMessageId }).catch((err) => this.onerror?.(err as Error));
        return;
      }
      const body = JSON.stringify(message);
      const res = await this.authorized(
        'POST',
        { ...this.baseHeaders, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
      );
      this.takeSessionId(res);
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        const text = await readText(res).catch(() => null);
        throw new StreamableHTTPError(status, `Error POSTing to endpoint: ${redirectNote(res, this.url) ?? text}`);
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
        this.readSse(res, { onresumptiontoken: options?.onresumptiontoken }, false);
      } else if (contentType === 'application/json') {
        const data = JSON.parse(await readText(res)) as unknown;
        const replies = Array.isArray(data) ? data.map(toJsonRpcMessage) : [toJsonRpcMessage(data)];
        for (const reply of replies) this.onmessage?.(reply);
      } else {
        res.resume();
        throw new StreamableHTTPError(-1, `Unexpected content type: ${res.headers['content-type']}`);
      }
    } catch (error) {
      this.onerror?.(error as Error);
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
        throw new StreamableHTTPError(status, `Failed to terminate session: ${redirectNote(res, this.url) ?? res.statusMessage}`);
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
    if (typeof id === 'string' && id && id !== this._sessionId) {
      this._sessionId = id;
      this.rebuildHeaders();
    }
  }

  /**
   * A request with the OAuth bearer token, when the backend uses OAuth. A 401
   * (or a 403 insufficient_scope) runs the SDK's auth() once: a refresh, a new
   * client_credentials token, or the provider's AuthorizationRequiredError when
   * only the user can help. Without OAuth it is a plain request.
   */
  private async authorized(method: string, headers: OutgoingHttpHeaders, body?: string): Promise<IncomingMessage> {
    const auth = this.auth;
    if (!auth) return this.request(method, headers, body);
    for (let attempt = 0; ; attempt++) {
      const tokens = await auth.provider.tokens();
      const res = await this.request(method, tokens ? { ...headers, authorization: `Bearer ${tokens.access_token}` } : headers, body);
      const status = res.statusCode;
      if (status !== 401 && status !== 403) return res;
      const challenge = challengeOf(res);
      auth.onChallenge?.(status, challenge);
      const { resourceMetadataUrl, scope, error } = extractWWWAuthenticateParams(challenge);
      // A 403 for another reason is not about the token; a second refusal after auth() is the answer (no loop).
      if ((status === 403 && error !== 'insufficient_scope') || attempt > 0) return res;
      res.resume();
      const result = await authorize(auth.provider, { serverUrl: this.url, resourceMetadataUrl, scope, fetchFn: auth.fetch });
      if (result !== 'AUTHORIZED') throw new UnauthorizedError();
    }
  }

  /** One HTTP request; resolves with the response once its headers are in (redirects followed as by the SDK). */
  private async request(method: string, headers: OutgoingHttpHeaders, body?: string): Promise<IncomingMessage> {
    let url = this.url;
    for (let hop = 0; ; hop++) {
      const res = await this.requestOnce(url, method, headers, body);
      const target = hop < MAX_REDIRECTS ? followableRedirect(res, url, method) : undefined;
      if (!target) return res;
      res.resume();
      url = target;
    }
  }

  private requestOnce(url: URL, method: string, headers: OutgoingHttpHeaders, body?: string): Promise<IncomingMessage> {
    if (this.closed) return Promise.reject(abortError());
    return new Promise((resolve, reject) => {
      const h = body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) };
      // Plain options rather than the URL: Node would convert the URL on every request.
      const target = url === this.url ? this.target : urlToRequestOptions(url);
      const req = this.requestFn({ ...target, method, headers: h, agent: this.agent });
      this.inFlight.add(req);
      req.once('response', (res) => {
        this.inFlight.delete(req);
        this.responses.add(res);
        res.once('close', () => this.responses.delete(res));
        resolve(res);
      });
      req.once('error', (err) => {
        this.inFlight.delete(req);
        // No retry, as with fetch: a POST may have reached the server. Idle kept-alive
        // sockets are retired before the server's announced Keep-Alive timeout (see AGENT_IDLE_TIMEOUT_MS).
        reject(this.closed ? abortError() : err);
      });
      req.end(body);
    });
  }

  private async openSse(options: SseOptions): Promise<void> {
    try {
      const headers: OutgoingHttpHeaders = { ...this.baseHeaders, accept: 'text/event-stream' };
      if (options.resumptionToken) headers['last-event-id'] = options.resumptionToken;
      const res = await this.authorized('GET', headers);
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        res.resume();
        // 405: the server offers no standalone stream; that is allowed.
        if (status === 405) return;
        throw new StreamableHTTPError(status, `Failed to open SSE stream: ${redirectNote(res, this.url) ?? res.statusMessage}`);
      }
      this.readSse(res, options, true);
    } catch (error) {
      this.onerror?.(error as Error);
      throw error;
    }
  }

  private readSse(res: IncomingMessage, options: SseOptions, reconnectable: boolean): void {
    const { onresumptiontoken, replayMessageId } = options;
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
          if ('result' in message && message.id !== undefined) {
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
      if (error) this.onerror?.(new Error(`SSE stream disconnected: ${error}`));
      if ((reconnectable || primed) && !answered && !this.closed) {
        this.scheduleReconnect({ resumptionToken: lastEventId, onresumptiontoken, replayMessageId }, 0);
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
      return;
    }
    const delay = this.serverRetryMs ?? Math.min(initialReconnectionDelay * Math.pow(reconnectionDelayGrowFactor, attempt), maxReconnectionDelay);
    this.reconnectTimer = setTimeout(() => {
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
