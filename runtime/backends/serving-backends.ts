/**
 * The set of live backend connections and the registry built from the ones
 * that serve traffic. The controller decides when a connection is created,
 * attached (serving), detached or closed; the pool keeps the registry in step
 * and says which lists changed, so client sessions get exactly the
 * `list_changed` notifications they need.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from '../observability/logging/logger.js';
import type { BackendSpec } from '../../schemas/config.js';
import { BackendConnection, type BackendBridge, type ForwardOptions } from './backend-connection.js';
import type { JsonObject } from '../routing/caller.js';
import { AS_PROCESS, createBackendTransport, type OAuthSource, type Placement } from '../transports/create-backend-transport.js';
import { buildRouteTable, emptyRouteTable, type ConflictPolicy, type RouteTable } from '../routing/route-table.js';
import { listResultJson } from '../transports/json-rpc.js';
import type { BackendCatalog } from './backend-catalog.js';

export type ListKind = 'tools' | 'prompts' | 'resources';

/** Local capabilities have no config of their own: no filters, no renames. */
const LOCAL_SPEC: BackendSpec = { type: 'stdio', command: 'gateway' };

export interface ServingBackendsEvents {
  /** The registry was rebuilt; `changed` names the client-visible lists that differ. */
  registry: [snapshot: RouteTable, changed: Set<ListKind>];
}

/** Whatever serves a route: a backend connection, or something the gateway serves itself. */
export interface ServingTarget {
  request(method: string, params: JsonObject | undefined, opts: ForwardOptions): Promise<JsonObject>;
  readonly requestTimeoutMs: number;
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
  request(route: string, method: string, params: JsonObject | undefined, opts: ForwardOptions): Promise<JsonObject>;
  readonly requestTimeoutMs: number;
  /** Told after the catalogs changed. */
  onChange(listener: () => void): () => void;
}

export class ServingBackends extends EventEmitter<ServingBackendsEvents> {
  private readonly serving = new Map<string, BackendConnection>();
  /** The catalogs of backends out of service that are expected back (reconnecting, failed). */
  private readonly resting = new Map<string, BackendCatalog>();
  private local?: LocalProvider;
  /** One stable target object per local route name (subscriptions compare identities). */
  private localTargets = new Map<string, ServingTarget | undefined>();
  private order: string[] = [];
  private policy: ConflictPolicy = { strategy: 'prefix', separator: '_' };
  private specs = new Map<string, BackendSpec>();
  snapshot: RouteTable = emptyRouteTable();
  private signatures = signaturesOf(this.snapshot);

  constructor(
    private readonly bridge: BackendBridge,
    private readonly log: Logger,
    /** The outgoing OAuth of backends with `auth.type: oauth`. */
    private readonly auth?: OAuthSource,
  ) {
    super();
  }

  /** New desired state: config order decides conflicts; specs feed filters and renames. */
  configure(specs: Record<string, BackendSpec>, policy: ConflictPolicy): void {
    this.order = Object.keys(specs);
    this.specs = new Map(Object.entries(specs));
    this.policy = policy;
    this.rebuild();
  }

  /** A new connection, placed where the container steps decided (a stdio backend: process or container). */
  create(name: string, spec: BackendSpec, placement: Placement = AS_PROCESS): BackendConnection {
    return new BackendConnection(name, spec, this.bridge, this.log, (hooks) => createBackendTransport(name, spec, placement, this.auth, hooks));
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
    if (!opts.remember) this.resting.delete(name);
    if (conn || !opts.remember) this.rebuild();
  }

  /** Why the route table leaves this backend out (a name conflict under strategy `error`), or null. */
  rejection(name: string): string | null {
    return this.snapshot.rejected.get(name) ?? null;
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
      target = { request: (method, params, opts) => local.request(name, method, params, opts), requestTimeoutMs: local.requestTimeoutMs };
      this.localTargets.set(name, target);
    }
    return target;
  }

  /** Serves a local provider's capabilities (once; the skills). */
  setLocal(provider: LocalProvider): void {
    this.local = provider;
    provider.onChange(() => this.rebuild());
    this.rebuild();
  }

  servingNames(): string[] {
    return [...this.serving.keys()];
  }

  private rebuild(): void {
    const inputs = this.order
      .filter((name) => this.serving.has(name))
      .map((name) => {
        const conn = this.serving.get(name)!;
        // Filters and renames come from the desired spec, so a config edit applies without reconnecting when possible.
        return { name, spec: this.specs.get(name) ?? conn.spec, catalog: conn.catalog };
      });
    const resting = this.order
      .filter((name) => this.resting.has(name) && !this.serving.has(name))
      .map((name) => ({ name, spec: this.specs.get(name)!, catalog: this.resting.get(name)! }));
    const localCatalogs = this.local?.catalogs() ?? new Map<string, BackendCatalog>();
    this.localTargets = new Map([...localCatalogs.keys()].map((name) => [name, this.localTargets.get(name)]));
    const locals = [...localCatalogs].map(([name, catalog]) => ({ name, spec: LOCAL_SPEC, catalog, exact: true }));
    const snapshot = buildRouteTable([...inputs, ...locals], this.policy, resting);
    const next = signaturesOf(snapshot);
    const changed = new Set<ListKind>((Object.keys(next) as ListKind[]).filter((k) => next[k] !== this.signatures[k]));
    this.signatures = next;
    this.snapshot = snapshot;
    this.emit('registry', snapshot, changed);
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
