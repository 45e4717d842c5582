/**
 * What one caller may see and use, computed in one place: the lists it is
 * shown (the route table's, filtered by the policies, and with the optimizer
 * on its meta-tools and kept tools), which tools the optimizer may name to
 * it, and which resources it may read or subscribe to. The lists of both
 * protocol revisions, tool calls through the optimizer and the fan-out's
 * resource updates all ask here, so they can never disagree.
 *
 * Everything is cached where the answer is computed (per route table and
 * role set in AccessControl, per list here), so asking costs a few lookups.
 */
import type { RouteTable } from '../routing/route-table.js';
import type { CatalogKind } from '../backends/backend-catalog.js';
import type { CallerContext } from '../routing/caller.js';
import type { ToolOptimizer, ToolVisibility } from '../optimizer/tool-optimizer.js';
import type { AccessControl, ClientLists } from './access-control.js';
import { callFacts, listFacts } from '../routing/call-facts.js';

/** The route table now (the serving backends own it). */
export interface RouteSourceOfView {
  readonly routes: RouteTable;
}

/** Who asks: roles and id, and what a policy's `when` may read of a caller before any call (revision, client, claims). */
type Viewer = Pick<CallerContext, 'transport' | 'roles' | 'userId' | 'protocolVersion' | 'client' | 'claims'>;
type Tool = RouteTable['lists']['tools'][number];

export class CallerView {
  /** A visible-tool list → the optimizer's visibility test built from it (lists are cached, so this is too). */
  private readonly visibility = new WeakMap<readonly Tool[], ToolVisibility>();

  constructor(
    private readonly source: RouteSourceOfView,
    private readonly access: AccessControl,
    private readonly optimizer: ToolOptimizer,
  ) {}

  /** The tools, prompts, resources and templates this caller may see. */
  lists(caller: Viewer, routes: RouteTable = this.source.routes): ClientLists {
    return this.access.visible(routes, caller, listFacts(caller));
  }

  /** The tool list this caller is shown: what it may see, or with the optimizer on the meta-tools and the kept tools it may see. */
  tools(caller: Viewer, routes: RouteTable = this.source.routes): Tool[] {
    if (!this.optimizer.enabled) return this.lists(caller, routes).tools;
    return this.optimizer.toolsList(routes, this.toolVisibility(caller, routes));
  }

  /** Which tools the optimizer may name to this caller; undefined: every tool. */
  toolVisibility(caller: Viewer, routes: RouteTable = this.source.routes): ToolVisibility | undefined {
    const { tools } = this.lists(caller, routes);
    if (tools === routes.lists.tools) return undefined;
    let visible = this.visibility.get(tools);
    if (!visible) {
      const names = new Set(tools.map((t) => t.name));
      this.visibility.set(tools, (visible = (name) => names.has(name)));
    }
    return visible;
  }

  /** How long the backends serving a list let it be kept (the shortest `ttlMs` they gave); undefined: none said. */
  listTtlMs(kind: CatalogKind, routes: RouteTable = this.source.routes): number | undefined {
    return routes.listTtlMs[kind];
  }

  /** Whether this caller may read (and so subscribe to) a resource; an unknown URI is the router's to refuse. */
  mayRead(caller: CallerContext, uri: string, backend: string | undefined): boolean {
    return (
      backend === undefined || this.access.check(caller, 'resource', uri, backend, () => callFacts(caller, 'resources/read', undefined, undefined)).allowed
    );
  }

  /**
   * Whether what callers are shown depends on who they are (the policies are
   * on): their lists and reads are then private to them, never for a shared
   * cache (2026-07-28 `cacheScope`).
   */
  get personal(): boolean {
    return this.access.enabled;
  }
}
