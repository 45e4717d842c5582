/**
 * The management API of one gateway (`/manage/v1`), typed from the schemas
 * the server serialises with. Every method resolves with the API's JSON as
 * is, or throws ApiError (the server said no; AuthenticationError for a 401)
 * or UnreachableError (nothing answered). Used by gateway-client, its REPL and the TUI.
 */
import { errorBodyOf, httpError, networkReason, UnreachableError } from './errors.js';
import type * as T from './api-types.js';

export interface ManagementClientOptions {
  /** Base URL of the gateway, e.g. http://127.0.0.1:9000 (see normaliseServerUrl). */
  baseUrl: string;
  /** Bearer token of the management API. */
  token?: string;
  /** Per-request limit for requests that should answer at once (default 30 s); calls and shutdown are not limited. */
  timeoutMs?: number;
}

type Query = Record<string, string | number | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  /** Override the default timeout; `null` for none. */
  timeoutMs?: number | null;
}

export class ManagementClient {
  readonly baseUrl: string;
  private readonly token?: string;
  private readonly timeoutMs: number;

  constructor(opts: ManagementClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.token = opts.token || undefined;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  /** The full URL of an API path (`/health` → `<base>/manage/v1/health`). */
  url(path: string, query?: Query): string {
    const url = new URL(`${this.baseUrl}/manage/v1${path}`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { accept: 'application/json', ...(this.token ? { authorization: `Bearer ${this.token}` } : {}), ...extra };
  }

  async request<R>(method: 'GET' | 'POST' | 'DELETE', path: string, opts: RequestOptions = {}): Promise<R> {
    const url = this.url(path, opts.query);
    const timeout = opts.timeoutMs === null ? undefined : AbortSignal.timeout(opts.timeoutMs ?? this.timeoutMs);
    const signal = timeout && opts.signal ? AbortSignal.any([timeout, opts.signal]) : (timeout ?? opts.signal);
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: this.headers(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        signal,
      });
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      throw new UnreachableError(this.baseUrl, networkReason(err));
    }
    const text = await res.text();
    if (!res.ok) throw httpError(res.status, errorBodyOf(res.status, res.statusText, text), url, 'management');
    return (text ? JSON.parse(text) : undefined) as R;
  }

  // --- monitoring ---
  health = (signal?: AbortSignal) => this.request<T.Health>('GET', '/health', { signal });
  ready = () => this.request<T.Ready>('GET', '/ready');
  status = () => this.request<T.Status>('GET', '/status');
  backends = () => this.request<T.Backends>('GET', '/backends');
  /** Status, backends, capabilities and the newest events in one answer. */
  batch = (eventsLimit?: number, signal?: AbortSignal) => this.request<T.Batch>('GET', '/batch', { query: { events_limit: eventsLimit }, signal });
  groups = (group?: string) => this.request<T.Groups>('GET', '/groups', { query: { group } });
  capabilities = (query: T.CapabilitiesQuery = {}) => this.request<T.Capabilities>('GET', '/capabilities', { query });
  sessions = () => this.request<T.Sessions>('GET', '/sessions');
  clients = () => this.request<T.Clients>('GET', '/clients');
  events = (query: T.EventsQuery = {}) => this.request<T.Events>('GET', '/events', { query });

  // --- control ---
  reload = () => this.request<T.Reload>('POST', '/reload', { timeoutMs: null });
  reconnect = (name: string) => this.request<T.Reconnect>('POST', `/reconnect/${encodeURIComponent(name)}`, { timeoutMs: null });
  /** With `user`: that user's sign-in to a backend that acts for each user (user_oauth). */
  reauth = (name: string, user?: string) => this.request<T.Reauth>('POST', `/reauth/${encodeURIComponent(name)}`, { query: { user } });
  /** Forgets a user's tokens for a backend that acts for each user (204; 404 `not_found` when there were none). */
  revokeUserToken = (name: string, user: string) =>
    this.request<void>('DELETE', `/backends/${encodeURIComponent(name)}/users/${encodeURIComponent(user)}/token`);
  shutdown = (timeoutSeconds?: number) =>
    this.request<T.Shutdown>('POST', '/shutdown', { body: timeoutSeconds === undefined ? {} : { timeout_seconds: timeoutSeconds } });

  /** The optimizer's search (what find_tool answers). */
  searchTools = (q: string, limit?: number) => this.request<T.ToolSearch>('GET', '/tools/search', { query: { q, ...(limit !== undefined ? { limit } : {}) } });

  // --- skills ---
  skills = () => this.request<T.Skills>('GET', '/skills');
  setSkill = (name: string, enabled: boolean) => this.request<T.SkillAction>('POST', `/skills/${encodeURIComponent(name)}/${enabled ? 'enable' : 'disable'}`);

  // --- plugins ---
  plugins = () => this.request<T.Plugins>('GET', '/plugins');

  // --- registry ---
  registrySearch = (q: string, opts: { limit?: number; registry?: string } = {}) =>
    this.request<T.RegistrySearch>('GET', '/registry/search', { query: { q, ...opts } });
  registryInstall = (body: T.RegistryInstallRequest) => this.request<T.RegistryInstall>('POST', '/registry/install', { body, timeoutMs: null });

  // --- definition pins ---
  pendingTools = () => this.request<T.PendingTools>('GET', '/tools/pending');
  pendingPrompts = () => this.request<T.PendingPrompts>('GET', '/prompts/pending');
  /** With `hash`, only if that definition is still the one waiting. */
  approveTool = (name: string, hash?: string) =>
    this.request<T.ApprovedTool>('POST', `/tools/${encodeURIComponent(name)}/approve`, { body: hash === undefined ? {} : { hash } });
  approvePrompt = (name: string, hash?: string) =>
    this.request<T.ApprovedPrompt>('POST', `/prompts/${encodeURIComponent(name)}/approve`, { body: hash === undefined ? {} : { hash } });

  // --- proxy ---
  callTool = (tool: string, args: Record<string, unknown>, signal?: AbortSignal) =>
    this.request<T.ToolCall>('POST', '/tools/call', { body: { tool, arguments: args }, signal, timeoutMs: null });
  readResource = (uri: string, signal?: AbortSignal) => this.request<T.ResourceRead>('POST', '/resources/read', { body: { uri }, signal, timeoutMs: null });
  getPrompt = (name: string, args: Record<string, string>, signal?: AbortSignal) =>
    this.request<T.PromptGet>('POST', '/prompts/get', { body: { name, arguments: args }, signal, timeoutMs: null });

  // --- authorization ---
  authorizationCheck = (body: T.AuthorizationCheckRequest) => this.request<T.AuthorizationCheck>('POST', '/authorization/check', { body });
}
