/**
 * One live MCP session with one backend: an SDK Client over the backend's
 * transport. It loads the backend's catalog (following pagination), keeps it
 * fresh on `list_changed`, forwards requests with passthrough results, and
 * hands requests and notifications the backend sends to its client over to
 * a bridge (the gateway side decides which client session gets them).
 *
 * It does not retry or reconnect: that is the controller's decision.
 */
import { EventEmitter } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CancelledNotificationSchema,
  type JSONRPCRequest,
  type Notification,
  type RequestId,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../observability/logging/logger.js';
import { DEFAULT_TIMEOUTS, type BackendSpec } from '../../schemas/config.js';
import { BackendUnavailableError } from '../../schemas/errors.js';
import type { BackendTransport, TransportHooks } from '../transports/backend-transport.js';
import type { ContainerRef } from '../../schemas/records.js';
import { emptyCatalog, setCatalogList, type BackendCatalog, type CatalogKind } from './backend-catalog.js';
import { toBackendError } from './backend-errors.js';
import { StderrTail } from './stderr-tail.js';
import { AuthorizationRequiredError, findAuthorizationRequired } from '../auth/errors.js';
import { GATEWAY_NAME, GATEWAY_VERSION } from '../version.js';
import { PASSTHROUGH } from '../transports/passthrough-schema.js';
import type { JsonObject, ProgressHandler, TargetRequestOptions } from '../routing/caller.js';

/** Where backend-initiated traffic goes (runtime/routing/backend-traffic.ts). */
export interface BackendBridge {
  /**
   * `sampling/createMessage`, `elicitation/create`, `roots/list` raised by the
   * backend. `onprogress` is set when the backend asked for progress on it:
   * what the client reports goes back to the backend under its token.
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

const LIST_CHANGED: Record<string, CatalogKind[]> = {
  'notifications/tools/list_changed': ['tools'],
  'notifications/resources/list_changed': ['resources', 'resourceTemplates'],
  'notifications/prompts/list_changed': ['prompts'],
};

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
  /** Requests the backend sent us that are being answered, by id (see connect()). */
  private readonly incoming = new Map<RequestId, AbortController>();
  /** Per kind, how many catalog loads have started: a slower, older load must not overwrite a newer one. */
  private readonly loadGeneration: Record<CatalogKind, number> = { tools: 0, resources: 0, resourceTemplates: 0, prompts: 0 };

  constructor(
    name: string,
    spec: BackendSpec,
    private readonly bridge: BackendBridge,
    private readonly log: Logger,
    /** Makes a fresh transport for each connect (runtime/transports/create-backend-transport.ts). */
    private readonly openTransport: (hooks: TransportHooks) => BackendTransport,
  ) {
    super();
    this.name = name;
    this.spec = spec;
  }

  /** Connect, initialize and first catalog load (config `timeouts.connect_s`, default 30 s). */
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

  get pid(): number | undefined {
    return this.transport?.pid;
  }

  /** The container this backend runs in, once started: `{ id, image, runtime }` (undefined for a process or an HTTP backend). */
  get container(): ContainerRef | undefined {
    return this.transport?.container;
  }

  /** Connects, initializes and loads the catalog, within the connect timeout. */
  async connect(): Promise<void> {
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
      { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
    );
    this.client = client;
    // Requests the backend sends (sampling, elicitation, roots) are cancelled through our own
    // controllers: SDK 1.32 ignores notifications/cancelled for request id 0 (a falsy check in
    // Protocol._oncancel), and 0 is the id of the first request a backend sends.
    client.fallbackRequestHandler = async (request, extra) => {
      const own = new AbortController();
      this.incoming.set(request.id, own);
      // The backend asked for progress on its request: what the client reports goes back under the backend's token.
      const token = (request.params?._meta as { progressToken?: string | number } | undefined)?.progressToken;
      const onprogress: ProgressHandler | undefined =
        token === undefined ? undefined : (p) => void this.notify('notifications/progress', { ...p, progressToken: token });
      try {
        return await this.bridge.onServerRequest(this.name, request, AbortSignal.any([extra.signal, own.signal]), onprogress);
      } finally {
        if (this.incoming.get(request.id) === own) this.incoming.delete(request.id);
      }
    };
    client.setNotificationHandler(CancelledNotificationSchema, (n) => {
      const id = n.params.requestId;
      if (id !== undefined) this.incoming.get(id)?.abort(n.params.reason);
    });
    client.fallbackNotificationHandler = async (n) => this.onNotification(n);
    client.onclose = () => {
      if (this.closing) return;
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
      await withAbort(client.connect(transport, { timeout: timeoutMs }), timer.signal, () => new Error(`connect timed out after ${timeoutMs} ms`));
      await withAbort(
        this.loadCatalog(['tools', 'resources', 'resourceTemplates', 'prompts']),
        timer.signal,
        () => new Error(`catalog load timed out after ${timeoutMs} ms`),
      );
      this.connected = true;
    } catch (err) {
      await this.close();
      const reason = this.exitReason ? `${(err as Error).message} (${this.exitReason})` : (err as Error).message;
      throw new Error(reason, { cause: err });
    } finally {
      clearTimeout(timeout);
    }
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
    try {
      return (await client.request({ method, params }, PASSTHROUGH, options)) as JsonObject;
    } catch (err) {
      const auth = findAuthorizationRequired(err);
      // A missing scope (step-up) fails only the calls that need it: the operator is told, the backend serves on.
      // Otherwise the tokens are gone for good (a revoked refresh token): the backend waits for the user, not for a retry.
      if (auth instanceof AuthorizationRequiredError && auth.stepUpScope) this.needStepUp({ scope: auth.stepUpScope, message: auth.message });
      else if (auth) void this.endForAuthorization(auth.message);
      throw toBackendError(this.name, err, opts.timeoutMs, opts.signal);
    }
  }

  /** Sends a notification to the backend (e.g. roots/list_changed), ignoring a closed transport. */
  async notify(method: string, params?: JsonObject): Promise<void> {
    await this.client?.notification({ method, params }).catch(() => undefined);
  }

  /** MCP ping; resolves with the round-trip time in milliseconds. */
  async ping(timeoutMs: number): Promise<number> {
    const started = performance.now();
    await this.request('ping', undefined, { timeoutMs });
    return performance.now() - started;
  }

  async close(): Promise<void> {
    const endedByItself = this.closing;
    this.closing = true;
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    this.catalog = emptyCatalog();
    try {
      // A streamable HTTP session we end on purpose is ended at the backend too (DELETE), briefly: a dead backend must not hold us up.
      if (!endedByItself && this.connected && transport?.terminateSession) {
        await withTimeout(transport.terminateSession(), SESSION_END_TIMEOUT_MS).catch(() => undefined);
      }
      if (client) await client.close();
      else await transport?.close();
    } catch (err) {
      this.log.debug({ backend: this.name, err: (err as Error).message }, 'error while closing backend');
    }
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
   * After a transport error on an HTTP backend: ping it, and if it does not
   * answer, close the client. That fails every request still waiting on it
   * at once (instead of at its timeout) and reports the loss (`closed`).
   */
  private async probe(cause: Error): Promise<void> {
    if (this.probing || this.closing || !this.connected) return;
    this.probing = true;
    try {
      await this.request('ping', undefined, { timeoutMs: this.connectTimeoutMs });
    } catch (err) {
      if (this.closing) return;
      this.exitReason = `backend unreachable: ${(err as Error).message} (after transport error: ${cause.message})`;
      await this.client?.close().catch(() => undefined);
    } finally {
      this.probing = false;
    }
  }

  private async onNotification(n: Notification): Promise<void> {
    const kinds = LIST_CHANGED[n.method];
    if (!kinds) {
      this.bridge.onNotification(this.name, n);
      return;
    }
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
        return caps[spec.capability] ? await this.listAll(spec.method, spec.field) : [];
      }),
    );
    if (this.closing) return;
    const next: BackendCatalog = { ...this.catalog };
    let changed = false;
    kinds.forEach((kind, i) => {
      if (this.loadGeneration[kind] !== generations[i]) return;
      setCatalogList(next, kind, lists[i]!);
      changed = true;
    });
    if (!changed) return;
    this.catalog = next;
    this.emit('catalog');
  }

  private async listAll(method: string, field: string): Promise<unknown[]> {
    const timeoutMs = this.requestTimeoutMs;
    const items: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.request(method, cursor ? { cursor } : undefined, { timeoutMs });
      const list = result[field];
      if (Array.isArray(list)) items.push(...(list as unknown[]));
      cursor = typeof result.nextCursor === 'string' && result.nextCursor ? result.nextCursor : undefined;
      if (!cursor) break;
    }
    return items;
  }
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
