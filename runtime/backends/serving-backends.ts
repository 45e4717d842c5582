/**
 * The backends in service and the route table built from them. The
 * controller decides when a connection is created, attached (serving),
 * detached or closed; this keeps the route table in step with the
 * connections and with desired state (filters, renames, the conflict
 * strategy: read from desired state, never copied), and says what changed:
 * which client-visible lists (so sessions get exactly the `list_changed`
 * notifications they need) and which backends' conflict verdicts (so only
 * those are reconciled again).
 */
import { EventEmitter } from 'node:events';
import type { Notification } from '@modelcontextprotocol/client';
import type { Logger } from '../observability/logging/logger.js';
import type { BackendSpec } from '../../schemas/config.js';
import { callerCredentials, type CallerTokenSources } from './caller-credentials.js';
import { BackendConnection, type BackendBridge } from './backend-connection.js';
import type { JsonObject, TargetRequestOptions } from '../routing/caller.js';
import { AS_PROCESS, createBackendTransport, type OAuthSource, type Placement } from '../transports/create-backend-transport.js';
import { buildRouteTable, emptyRouteTable, type ConflictPolicy, type DefinitionReview, type ListKind, type RouteTable } from '../routing/route-table.js';
import { listResultJson } from '../transports/json-rpc.js';
import type { BackendCatalog } from './backend-catalog.js';
import { StderrLog } from './stderr-log.js';

/** Desired state as the serving set reads it (controller/config/desired-state.ts). */
export interface DesiredBackends {
  /** Backend names in config order (the order conflicts are decided in). */
  names(): string[];
  get(name: string): BackendSpec | undefined;
  readonly conflictPolicy: ConflictPolicy;
}

export interface RoutesChange {
  /** The client-visible lists that differ. */
  lists: ReadonlySet<ListKind>;
  /** Backends whose conflict verdict (`rejection()`) differs. */
  verdicts: readonly string[];
}

export interface ServingBackendsEvents {
  /** The route table was rebuilt. */
  routes: [table: RouteTable, change: RoutesChange];
}

/** Whatever serves a route: a backend connection, or something the gateway serves itself. */
export interface ServingTarget {
  request(method: string, params: JsonObject | undefined, opts: TargetRequestOptions): Promise<JsonObject>;
  readonly requestTimeoutMs: number;
  /** How a backend that acts for each caller obtains their tokens (`auth.on_behalf_of.type`); absent: it sees the gateway. */
  readonly actsForCallers?: 'token_exchange' | 'user_oauth';
  /**
   * Updates about a resource reach the bridge from now on, whatever the
   * revision (2025-11-25: `resources/subscribe`; 2026-07-28: the URI joins
   * the backend's listen stream). Resolves once the target has it.
   */
  subscribeResource(uri: string): Promise<void>;
  unsubscribeResource(uri: string): Promise<void>;
}

/**
 * Capabilities the gateway serves itself (skills): they enter the route table
 * like a backend's, under their own exact names (never prefixed), after every
 * backend, so a backend keeps a name both claim. Their route "backends" are
 * names no config backend can have (they contain ':').
 */
export interface LocalProvider {
  /** The catalog of each route name, e.g. `skill:research`. */
  catalogs(): ReadonlyMap<string, BackendCatalog>;
  request(route: string, method: string, params: JsonObject | undefined, opts: TargetRequestOptions): Promise<JsonObject>;
  readonly requestTimeoutMs: number;
  /** Told after the catalogs changed. */
  onChange(listener: () => void): () => void;
}

export class ServingBackends extends EventEmitter<ServingBackendsEvents> {
  private readonly serving = new Map<string, BackendConnection>();
  /** What each backend's processes wrote to stderr lately, across connection attempts. */
  readonly stderr = new StderrLog();
  /** The catalogs of backends out of service that are expected back (reconnecting, failed). */
  private readonly resting = new Map<string, BackendCatalog>();
  private local?: LocalProvider;
  private review?: DefinitionReview;
  /** One stable target object per local route name (subscriptions compare identities). */
  private localTargets = new Map<string, ServingTarget | undefined>();
  private table: RouteTable = emptyRouteTable();
  private signatures = signaturesOf(this.table);

  constructor(
    private readonly desired: DesiredBackends,
    private readonly bridge: BackendBridge,
    private readonly log: Logger,
    /** The outgoing OAuth of backends with `auth.type: oauth`. */
    private readonly auth: OAuthSource | undefined,
    /** Tokens obtained for each caller of a backend with `auth.on_behalf_of` (exchanged, or granted by the user's sign-in). */
    private readonly callerTokens: CallerTokenSources,
  ) {
    super();
  }

  /** The current route table (immutable; replaced as a whole on every change). */
  get routes(): RouteTable {
    return this.table;
  }

  /** Desired state changed (a reload): filters, renames, order and the conflict strategy apply at once. */
  refresh(): void {
    this.rebuild();
  }

  /** A new connection, placed where the container steps decided (a stdio backend: process or container). */
  create(name: string, spec: BackendSpec, placement: Placement = AS_PROCESS): BackendConnection {
    return new BackendConnection(
      name,
      spec,
      this.bridge,
      this.log,
      (hooks) =>
        createBackendTransport(name, spec, placement, this.auth, {
          ...hooks,
          onstderr: (line) => {
            this.stderr.push(name, line);
            hooks.onstderr?.(line);
          },
        }),
      callerCredentials(name, spec, this.callerTokens),
    );
  }

  /** Puts a connected backend into service. */
  attach(conn: BackendConnection): void {
    const previous = this.serving.get(conn.name);
    if (previous === conn) return;
    previous?.removeAllListeners('catalog');
    this.serving.set(conn.name, conn);
    conn.on('catalog', () => this.rebuild());
    this.rebuild();
  }

  /**
   * Takes a backend out of service (its capabilities leave the route table).
   * With `remember`, its names are kept as unavailable, so a call to one says
   * which backend is down rather than that the name is unknown.
   */
  detach(name: string, opts: { remember: boolean }): void {
    const conn = this.serving.get(name);
    if (conn) {
      conn.removeAllListeners('catalog');
      this.serving.delete(name);
      if (opts.remember) this.resting.set(name, conn.catalog);
    }
    if (!opts.remember) {
      this.resting.delete(name);
      this.stderr.forget(name);
    }
    if (conn || !opts.remember) this.rebuild();
  }

  /** Why the route table leaves this backend out (a name conflict under strategy `error`), or null. */
  rejection(name: string): string | null {
    return this.table.rejected.get(name) ?? null;
  }

  /** The serving connection of a backend, if any. */
  get(name: string): BackendConnection | undefined {
    return this.serving.get(name);
  }

  /** What serves a route's backend name: a connection, or the local provider. */
  target(name: string): ServingTarget | undefined {
    const conn = this.serving.get(name);
    if (conn) return conn;
    const local = this.local;
    if (!local || !this.localTargets.has(name)) return undefined;
    let target = this.localTargets.get(name);
    if (!target) {
      const request: ServingTarget['request'] = (method, params, opts) => local.request(name, method, params, opts);
      const ask = (method: string) => async (uri: string) => void (await request(method, { uri }, { timeoutMs: local.requestTimeoutMs }));
      target = {
        request,
        requestTimeoutMs: local.requestTimeoutMs,
        subscribeResource: ask('resources/subscribe'),
        unsubscribeResource: ask('resources/unsubscribe'),
      };
      this.localTargets.set(name, target);
    }
    return target;
  }

  /** Serves a local provider's capabilities beside the backends' (once; the skills). */
  serveLocal(provider: LocalProvider): void {
    this.local = provider;
    provider.onChange(() => this.rebuild());
    this.rebuild();
  }

  /** Checks the backends' definitions against their pins whenever the table is built (runtime/pinning). */
  reviewDefinitions(review: DefinitionReview): void {
    this.review = review;
    this.rebuild();
  }

  /** A notification from a local provider's route (a skill file changed) goes to clients as a backend's would. */
  notifyFrom(route: string, notification: Notification): void {
    this.bridge.onNotification(route, notification);
  }

  servingNames(): string[] {
    return [...this.serving.keys()];
  }

  private rebuild(): void {
    const order = this.desired.names();
    // Filters and renames come from desired state, so a config edit applies without reconnecting when possible.
    const inputs = order
      .filter((name) => this.serving.has(name))
      .map((name) => {
        const conn = this.serving.get(name)!;
        return { name, spec: this.desired.get(name) ?? conn.spec, catalog: conn.catalog, session: conn };
      });
    const resting = order
      .filter((name) => this.resting.has(name) && !this.serving.has(name))
      .map((name) => ({ name, spec: this.desired.get(name)!, catalog: this.resting.get(name)! }));
    const localCatalogs = this.local?.catalogs() ?? new Map<string, BackendCatalog>();
    this.localTargets = new Map([...localCatalogs.keys()].map((name) => [name, this.localTargets.get(name)]));
    // The gateway's own capabilities have no config: no filters, no renames.
    const locals = [...localCatalogs].map(([name, catalog]) => ({ name, spec: {}, catalog, exact: true }));
    const before = this.table;
    const table = buildRouteTable([...inputs, ...locals], this.desired.conflictPolicy, resting, this.review);
    const next = signaturesOf(table);
    const lists = new Set<ListKind>((Object.keys(next) as ListKind[]).filter((k) => next[k] !== this.signatures[k]));
    const verdicts = [...new Set([...before.rejected.keys(), ...table.rejected.keys()])].filter((n) => before.rejected.get(n) !== table.rejected.get(n));
    this.signatures = next;
    this.table = table;
    this.emit('routes', table, { lists, verdicts });
  }
}

/** What clients would be sent for each list: the same JSON the list responses are served from (computed once per snapshot). */
function signaturesOf(snapshot: RouteTable): Record<ListKind, string> {
  const { lists } = snapshot;
  return {
    tools: listResultJson('tools', lists.tools),
    prompts: listResultJson('prompts', lists.prompts),
    resources: listResultJson('resources', lists.resources) + listResultJson('resourceTemplates', lists.resourceTemplates),
  };
}
