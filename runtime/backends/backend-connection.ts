/**
 * One live MCP connection with one backend: an SDK (v2) Client over the
 * backend's transport, speaking the revision it negotiated (./negotiation.ts).
 * It loads the backend's catalog (following pagination), keeps it fresh on
 * `list_changed`, forwards requests with passthrough results, and hands
 * requests and notifications the backend sends to its client over to a
 * bridge (the gateway side decides which client session gets them).
 *
 * A 2026-07-28 backend sends nothing unasked: its list changes and resource
 * updates come on a `subscriptions/listen` stream (./listen-stream.ts); it
 * has no `ping` (server/discover answers the health probe), no
 * `logging/setLevel` (the level goes with each request, in `_meta`) and no
 * server-to-client requests (a call that needs input answers
 * `input_required`, which is handed back as the result).
 *
 * It does not retry or reconnect: that is the controller's decision.
 */
import { EventEmitter } from 'node:events';
import {
  Client,
  LOG_LEVEL_META_KEY,
  SdkError,
  SdkErrorCode,
  SUBSCRIPTION_ID_META_KEY,
  type JSONRPCRequest,
  type Notification,
  type PriorDiscovery,
  type RequestOptions,
  type ServerCapabilities,
} from '@modelcontextprotocol/client';
import type { Logger } from '../observability/logging/logger.js';
import { DEFAULT_TIMEOUTS, type BackendSpec } from '../../schemas/config.js';
import { BackendCallError, BackendUnavailableError } from '../../schemas/errors.js';
import { RpcCode } from '../../schemas/json-rpc-codes.js';
import type { BackendTransport, TransportHooks } from '../transports/backend-transport.js';
import type { ContainerRef } from '../../schemas/records.js';
import { emptyCatalog, setCatalogList, shorterListTtl, type BackendCatalog, type CatalogKind, type LoadedList } from './backend-catalog.js';
import { toBackendError, connectFailureMessage, isUnauthorizedAnswer } from './backend-errors.js';
import { CALLER_METHODS, type CallerCredentials } from './caller-credentials.js';
import { StderrTail } from './stderr-tail.js';
import { ListenStream } from './listen-stream.js';
import { negotiationFor, protocolOf } from './negotiation.js';
import { ToolHeaderParams } from './tool-header-params.js';
import { AuthorizationRequiredError, findAuthorizationRequired } from '../auth/errors.js';
import { GATEWAY_NAME, GATEWAY_VERSION } from '../version.js';
import { PASSTHROUGH } from '../transports/passthrough-schema.js';
import type { JsonObject, ProgressHandler, TargetRequestOptions } from '../routing/caller.js';

/** Where backend-initiated traffic goes (runtime/routing/backend-traffic.ts). */
export interface BackendBridge {
  /**
   * `sampling/createMessage`, `elicitation/create`, `roots/list` raised by a
   * 2025-11-25 backend. `onprogress` is set when the backend asked for
   * progress on it: what the client reports goes back to the backend under its token.
   */
  onServerRequest(backend: string, request: JSONRPCRequest, signal: AbortSignal, onprogress?: ProgressHandler): Promise<JsonObject>;
  /** Notifications other than list changes and progress (resource updates, log messages). */
  onNotification(backend: string, notification: Notification): void;
}

const LIST_METHODS: Record<CatalogKind, { method: string; field: string; capability: keyof ServerCapabilities }> = {
  tools: { method: 'tools/list', field: 'tools', capability: 'tools' },
  resources: { method: 'resources/list', field: 'resources', capability: 'resources' },
  resourceTemplates: { method: 'resources/templates/list', field: 'resourceTemplates', capability: 'resources' },
  prompts: { method: 'prompts/list', field: 'prompts', capability: 'prompts' },
};

const ALL_KINDS: CatalogKind[] = ['tools', 'resources', 'resourceTemplates', 'prompts'];

const LIST_CHANGED: Record<string, CatalogKind[]> = {
  'notifications/tools/list_changed': ['tools'],
  'notifications/resources/list_changed': ['resources', 'resourceTemplates'],
  'notifications/prompts/list_changed': ['prompts'],
};

/** 2026-07-28 requests that may answer `input_required` (multi round-trip): handed back as their result. */
const MAY_NEED_INPUT = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** How long closing waits for a backend to acknowledge the end of its session (streamable HTTP DELETE). */
const SESSION_END_TIMEOUT_MS = 1000;

/** Catalog pages followed at most, so a looping cursor cannot hang a connect. */
const MAX_PAGES = 1000;

export interface BackendConnectionEvents {
  catalog: [];
  closed: [reason: string];
  /** A call needed more scope than the token has (see `stepUpRequired`). */
  stepUp: [];
}

/** The backend asked for a scope the token lacks: calls that need it fail until the user consents again. */
export interface StepUpNeed {
  scope: string;
  /** What to tell the operator (names the scope and the command that asks for consent). */
  message: string;
}

export class BackendConnection extends EventEmitter<BackendConnectionEvents> {
  readonly name: string;
  readonly spec: BackendSpec;
  catalog: BackendCatalog = emptyCatalog();
  private client?: Client;
  private transport?: BackendTransport;
  private closing = false;
  /** Set once connect() has succeeded; transport errors before that are connect()'s to report. */
  private connected = false;
  private probing = false;
  private exitReason?: string;
  /** Why the connection ended by itself (process exit, transport loss); undefined while up or when closed on purpose. */
  endedReason?: string;
  /** Set when it ended because the backend needs the user to authorize the gateway again (OAuth). */
  authorizationRequired?: string;
  /** Set when a call needed a scope the token lacks; the connection serves on for what the token allows. */
  stepUpRequired?: StepUpNeed;
  /** Per kind, how many catalog loads have started: a slower, older load must not overwrite a newer one. */
  private readonly loadGeneration: Record<CatalogKind, number> = { tools: 0, resources: 0, resourceTemplates: 0, prompts: 0 };
  /** The change stream of a 2026-07-28 backend. */
  private listen?: ListenStream;
  /** 2026-07-28: the log level set through `logging/setLevel`, sent with every request instead. */
  private logLevel?: string;
  /** 2026-07-28 over streamable HTTP: the `x-mcp-header` parameters of the catalog's tools. */
  private readonly headerParams = new ToolHeaderParams();

  constructor(
    name: string,
    spec: BackendSpec,
    private readonly bridge: BackendBridge,
    private readonly log: Logger,
    /** Makes a fresh transport for each connect (runtime/transports/create-backend-transport.ts). */
    private readonly openTransport: (hooks: TransportHooks) => BackendTransport,
    /** A backend that acts for each caller (`auth.on_behalf_of`): the token each caller's request carries (./caller-credentials.ts). */
    private readonly credentials?: CallerCredentials,
  ) {
    super();
    this.name = name;
    this.spec = spec;
  }

  /** How this backend obtains each caller's token (`auth.on_behalf_of.type`), when it acts for its callers. */
  get actsForCallers(): 'token_exchange' | 'user_oauth' | undefined {
    const auth = this.spec.type === 'stdio' ? undefined : this.spec.auth;
    return auth !== undefined && 'on_behalf_of' in auth ? auth.on_behalf_of.type : undefined;
  }

  /** Connect, negotiation and first catalog load (config `timeouts.connect_s`, default 30 s). */
  get connectTimeoutMs(): number {
    return (this.spec.timeouts?.connect_s ?? DEFAULT_TIMEOUTS.connect_s) * 1000;
  }

  /** Every forwarded request (config `timeouts.request_s`, default 60 s). */
  get requestTimeoutMs(): number {
    return (this.spec.timeouts?.request_s ?? DEFAULT_TIMEOUTS.request_s) * 1000;
  }

  get serverCapabilities(): ServerCapabilities | undefined {
    return this.client?.getServerCapabilities();
  }

  /** The MCP revision this connection speaks, once connected (e.g. `2025-11-25`, `2026-07-28`). */
  get protocolVersion(): string | undefined {
    return this.client?.getNegotiatedProtocolVersion();
  }

  /** Whether it speaks 2026-07-28 (no session, no unsolicited notifications, per-request envelope). */
  get modern(): boolean {
    return this.client?.getProtocolEra() === 'modern';
  }

  get pid(): number | undefined {
    return this.transport?.pid;
  }

  /** The container this backend runs in, once started: `{ id, image, runtime }` (undefined for a process or an HTTP backend). */
  get container(): ContainerRef | undefined {
    return this.transport?.container;
  }

  /**
   * Connects, negotiates the revision and loads the catalog, within the
   * connect timeout. A stdio server that exits on the `server/discover`
   * probe (some 2025 servers end on any request before `initialize`) is
   * started once more and initialized without a probe.
   */
  async connect(): Promise<void> {
    try {
      await this.open();
    } catch (err) {
      if (this.closing || !this.exitedOnProbe(err)) throw err;
      this.log.debug(
        { backend: this.name, err: (err as Error).message },
        'backend exited on the server/discover probe; starting it again as a 2025-11-25 server',
      );
      this.exitReason = undefined;
      await this.open({ kind: 'legacy' });
    }
  }

  private exitedOnProbe(err: unknown): boolean {
    const cause = (err as Error).cause;
    return (
      this.spec.type === 'stdio' &&
      protocolOf(this.spec) === 'auto' &&
      this.exitReason !== undefined &&
      cause instanceof SdkError &&
      cause.code === SdkErrorCode.EraNegotiationFailed
    );
  }

  private async open(prior?: PriorDiscovery): Promise<void> {
    const timeoutMs = this.connectTimeoutMs;
    const stderr = new StderrTail();
    const transport = this.openTransport({
      onstderr: (line) => {
        stderr.push(line);
        this.log.debug({ backend: this.name, stream: 'stderr' }, line);
      },
      onexit: ({ code, signal }) => {
        this.exitReason = stderr.explain(signal ? `process killed by ${signal}` : `process exited with code ${code}`);
      },
    });
    this.transport = transport;
    const client = new Client(
      { name: GATEWAY_NAME, version: GATEWAY_VERSION },
      {
        // Everything a client may be asked: whether this call's client can answer is checked when the backend asks (runtime/rounds/).
        capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } },
        versionNegotiation: negotiationFor(this.spec, timeoutMs),
        // A 2026-07-28 call that needs input comes back as its `input_required` result: the gateway decides what to do with it.
        inputRequired: { autoFulfill: false },
      },
    );
    this.client = client;
    // Requests the backend sends (sampling, elicitation, roots; 2025-11-25 only) go to the client the bridge picks.
    client.fallbackRequestHandler = async (request, ctx) => {
      // The backend asked for progress on its request: what the client reports goes back under the backend's token.
      const token = (request.params?._meta as { progressToken?: string | number } | undefined)?.progressToken;
      const onprogress: ProgressHandler | undefined =
        token === undefined ? undefined : (p) => void this.notify('notifications/progress', { ...p, progressToken: token });
      return await this.bridge.onServerRequest(this.name, request, ctx.mcpReq.signal, onprogress);
    };
    client.fallbackNotificationHandler = async (n) => this.onNotification(n);
    client.onclose = () => {
      if (this.closing || this.client !== client) return;
      this.closing = true;
      this.endedReason = this.exitReason ?? 'connection closed';
      this.emit('closed', this.endedReason);
    };
    client.onerror = (err) => {
      this.log.debug({ backend: this.name, err: err.message }, 'backend transport error');
      // HTTP client transports never close by themselves when the server goes
      // away: they only report errors (a broken event stream, a failed
      // reconnect). Find out whether the backend still answers.
      if (this.spec.type !== 'stdio') void this.probe(err);
    };

    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(), timeoutMs);
    try {
      await withAbort(client.connect(transport, { timeout: timeoutMs, prior }), timer.signal, () => new Error(`connect timed out after ${timeoutMs} ms`));
      await withAbort(this.loadCatalog(ALL_KINDS), timer.signal, () => new Error(`catalog load timed out after ${timeoutMs} ms`));
      if (this.modern) await withAbort(this.startListening(client), timer.signal, () => new Error(`listen stream not acknowledged in ${timeoutMs} ms`));
      this.connected = true;
    } catch (err) {
      await this.discard(client, transport);
      const said = connectFailureMessage(err);
      const reason = this.exitReason ? `${said} (${this.exitReason})` : said;
      throw new Error(reason, { cause: err });
    } finally {
      clearTimeout(timeout);
    }
  }

  /** Ends a client whose connect failed, so a second attempt starts clean. */
  private async discard(client: Client, transport: BackendTransport): Promise<void> {
    this.client = undefined;
    this.transport = undefined;
    this.catalog = emptyCatalog();
    await this.listen?.stop();
    this.listen = undefined;
    await client.close().catch(() => transport.close().catch(() => undefined));
  }

  /** 2026-07-28: opens the stream that carries list changes (a failure is logged; calls still work, the catalog may go stale). */
  private async startListening(client: Client): Promise<void> {
    const listen = new ListenStream(client, client.getServerCapabilities() ?? {}, {
      backend: this.name,
      log: this.log,
      ackTimeoutMs: this.requestTimeoutMs,
      onReopened: () => void this.refresh(ALL_KINDS),
    });
    this.listen = listen;
    await listen.start().catch((err: Error) => this.log.warn({ backend: this.name, err: err.message }, 'backend listen stream not opened; retrying'));
  }

  /** Forwards one request with the backend's own result object (no re-validation). */
  async request(method: string, params: JsonObject | undefined, opts: TargetRequestOptions): Promise<JsonObject> {
    const client = this.client;
    if (!client || this.closing) throw new BackendUnavailableError(this.name, 'not connected');
    const options: RequestOptions = { signal: opts.signal, timeout: opts.timeoutMs };
    if (opts.onprogress) {
      options.onprogress = opts.onprogress;
      options.resetTimeoutOnProgress = true;
    }
    if (this.modern) {
      if (method === 'logging/setLevel') return this.setLogLevel(params);
      params = this.withLogLevel(params);
      if (MAY_NEED_INPUT.has(method)) options.allowInputRequired = true;
      if (method === 'tools/call') options.headers = this.headerParams.headersFor(params);
    }
    const credentials = this.credentials && CALLER_METHODS.has(method) ? this.credentials : undefined;
    let sent: string | undefined;
    if (credentials) {
      // Before the try: a caller without a token, or a refused exchange, is this caller's error, never the connection's.
      sent = await credentials.authorizationFor(opts.caller);
      options.headers = { ...options.headers, authorization: sent };
    }
    try {
      return (await client.request({ method, params }, PASSTHROUGH, options).catch(async (err: unknown) => {
        // The backend refused the caller's token (401): this caller's token is dropped and the call made once more with
        // another, or refused as a first sign-in is; the connection and the other callers are not concerned.
        if (sent === undefined || !credentials?.refused || !isUnauthorizedAnswer(err)) throw err;
        options.headers = { ...options.headers, authorization: await credentials.refused(opts.caller, sent) };
        return client.request({ method, params }, PASSTHROUGH, options);
      })) as JsonObject;
    } catch (err) {
      const auth = findAuthorizationRequired(err);
      // A missing scope (step-up) fails only the calls that need it: the operator is told, the backend serves on.
      // Otherwise the tokens are gone for good (a revoked refresh token): the backend waits for the user, not for a retry.
      if (auth instanceof AuthorizationRequiredError && auth.stepUpScope) this.needStepUp({ scope: auth.stepUpScope, message: auth.message });
      else if (auth) void this.endForAuthorization(auth.message);
      throw toBackendError(this.name, err, opts.timeoutMs, opts.signal);
    }
  }

  /** Sends a notification to the backend (e.g. roots/list_changed), ignoring a closed transport or a revision without it. */
  async notify(method: string, params?: JsonObject): Promise<void> {
    await this.client?.notification({ method, params }).catch(() => undefined);
  }

  /**
   * Updates about one resource reach the bridge from now on: `resources/subscribe`
   * (2025-11-25), or the URI joins the listen stream's filter (2026-07-28).
   */
  async subscribeResource(uri: string): Promise<void> {
    if (!this.modern) {
      await this.request('resources/subscribe', { uri }, { timeoutMs: this.requestTimeoutMs });
      return;
    }
    const listen = this.listen;
    if (!listen || !listen.subscribable)
      throw new BackendCallError(this.name, 'Resource subscriptions are not supported by this backend', { code: RpcCode.MethodNotFound });
    await listen.subscribe(uri).catch((err: unknown) => {
      throw toBackendError(this.name, err, this.requestTimeoutMs);
    });
  }

  async unsubscribeResource(uri: string): Promise<void> {
    if (this.modern) await this.listen?.unsubscribe(uri);
    else await this.request('resources/unsubscribe', { uri }, { timeoutMs: this.requestTimeoutMs });
  }

  /** The health probe; resolves with the round-trip time in milliseconds. 2026-07-28 has no ping: server/discover answers instead. */
  async ping(timeoutMs: number): Promise<number> {
    const started = performance.now();
    await this.request(this.modern ? 'server/discover' : 'ping', undefined, { timeoutMs });
    return performance.now() - started;
  }

  async close(): Promise<void> {
    const endedByItself = this.closing;
    this.closing = true;
    const client = this.client;
    const transport = this.transport;
    const listen = this.listen;
    this.client = undefined;
    this.transport = undefined;
    this.listen = undefined;
    this.catalog = emptyCatalog();
    try {
      await listen?.stop();
      // A streamable HTTP session we end on purpose is ended at the backend too (DELETE), briefly: a dead backend must not hold us up.
      if (!endedByItself && this.connected && transport?.terminateSession) {
        await withTimeout(transport.terminateSession(), SESSION_END_TIMEOUT_MS).catch(() => undefined);
      }
      // A client still asking which revision to speak has not taken the transport over yet: end the transport itself.
      if (client?.transport) await client.close();
      else await transport?.close();
    } catch (err) {
      this.log.debug({ backend: this.name, err: (err as Error).message }, 'error while closing backend');
    }
  }

  private setLogLevel(params: JsonObject | undefined): JsonObject {
    this.logLevel = typeof params?.level === 'string' ? params.level : undefined;
    return {};
  }

  /** The level set by `logging/setLevel` goes in `_meta`, unless the request names its own. */
  private withLogLevel(params: JsonObject | undefined): JsonObject | undefined {
    const level = this.logLevel;
    const meta = params?._meta as JsonObject | undefined;
    if (level === undefined || (meta && LOG_LEVEL_META_KEY in meta)) return params;
    return { ...params, _meta: { [LOG_LEVEL_META_KEY]: level, ...meta } };
  }

  private needStepUp(need: StepUpNeed): void {
    if (this.stepUpRequired?.scope === need.scope) return;
    this.stepUpRequired = need;
    this.emit('stepUp');
  }

  /** Ends the connection because its OAuth tokens are gone; the controller parks it until a re-authentication. */
  private async endForAuthorization(message: string): Promise<void> {
    if (this.closing) return;
    this.authorizationRequired = message;
    this.exitReason = message;
    await this.client?.close().catch(() => undefined);
  }

  /**
   * After a transport error on an HTTP backend: probe it, and if it does not
   * answer, close the client. That fails every request still waiting on it
   * at once (instead of at its timeout) and reports the loss (`closed`).
   */
  private async probe(cause: Error): Promise<void> {
    if (this.probing || this.closing || !this.connected) return;
    this.probing = true;
    try {
      await this.ping(this.connectTimeoutMs);
    } catch (err) {
      if (this.closing) return;
      this.exitReason = `backend unreachable: ${(err as Error).message} (after transport error: ${cause.message})`;
      await this.client?.close().catch(() => undefined);
    } finally {
      this.probing = false;
    }
  }

  private async onNotification(n: Notification): Promise<void> {
    // An acknowledgement of a listen stream that is no longer ours: nothing to tell anyone.
    if (n.method === 'notifications/subscriptions/acknowledged') return;
    const kinds = LIST_CHANGED[n.method];
    if (!kinds) {
      this.bridge.onNotification(this.name, withoutSubscriptionId(n));
      return;
    }
    await this.refresh(kinds);
  }

  private async refresh(kinds: CatalogKind[]): Promise<void> {
    try {
      await this.loadCatalog(kinds);
    } catch (err) {
      this.log.warn({ backend: this.name, err: (err as Error).message }, 'failed to refresh catalog after list_changed');
    }
  }

  private async loadCatalog(kinds: CatalogKind[]): Promise<void> {
    const caps = this.serverCapabilities ?? {};
    // Loads overlap (a list_changed during the initial load, or two in a row):
    // each one merges only its own kinds into the catalog as it is when it
    // finishes, and only if no newer load of that kind started meanwhile.
    const generations = kinds.map((kind) => ++this.loadGeneration[kind]);
    const lists = await Promise.all(
      kinds.map(async (kind) => {
        const spec = LIST_METHODS[kind];
        return caps[spec.capability] ? await this.listAll(spec.method, spec.field) : ([] as LoadedList);
      }),
    );
    if (this.closing) return;
    const next: BackendCatalog = { ...this.catalog };
    let changed = false;
    kinds.forEach((kind, i) => {
      if (this.loadGeneration[kind] !== generations[i]) return;
      const list = kind === 'tools' && this.mirrorsHeaders() ? this.headerParams.load(lists[i]!, this.warnInvalidTool) : lists[i]!;
      setCatalogList(next, kind, list, lists[i]!.ttlMs);
      changed = true;
    });
    if (!changed) return;
    this.catalog = next;
    this.emit('catalog');
  }

  /** 2026-07-28 over streamable HTTP mirrors `x-mcp-header` tool parameters into headers (stdio may ignore them). */
  private mirrorsHeaders(): boolean {
    return this.modern && this.spec.type === 'streamable-http';
  }

  private readonly warnInvalidTool = (tool: string, reason: string): void => {
    this.log.warn({ backend: this.name, tool, reason }, 'tool left out: its x-mcp-header declaration is invalid');
  };

  private async listAll(method: string, field: string): Promise<LoadedList> {
    const timeoutMs = this.requestTimeoutMs;
    const items: LoadedList = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.request(method, cursor ? { cursor } : undefined, { timeoutMs });
      const list = result[field];
      if (Array.isArray(list)) items.push(...(list as unknown[]));
      // 2026-07-28: how long the backend says its list may be kept; the gateway's own lists are kept no longer.
      items.ttlMs = shorterListTtl(items.ttlMs, result);
      cursor = typeof result.nextCursor === 'string' && result.nextCursor ? result.nextCursor : undefined;
      if (!cursor) break;
    }
    return items;
  }
}

/** A notification from a listen stream without the stream's id, which means nothing to the gateway's clients. */
function withoutSubscriptionId(n: Notification): Notification {
  const meta = n.params?._meta as Record<string, unknown> | undefined;
  if (!meta || !(SUBSCRIPTION_ID_META_KEY in meta)) return n;
  const { [SUBSCRIPTION_ID_META_KEY]: _id, ...rest } = meta;
  const { _meta: _omit, ...params } = n.params!;
  return { ...n, params: Object.keys(rest).length > 0 ? { ...params, _meta: rest } : params };
}

function withAbort<T>(promise: Promise<T>, signal: AbortSignal, error: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(error());
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(error());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    promise.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
