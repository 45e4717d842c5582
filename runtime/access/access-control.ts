/**
 * The policies of the running config, applied: the router asks it before
 * each forwarded operation, the sessions ask it for the lists a caller may
 * see, the management API for a verdict. A reload replaces the policies for
 * the next request.
 *
 * It stays cheap per call: verdicts are cached per role set and capability,
 * and filtered lists per route table and role set (so their JSON is built
 * once, like the unfiltered ones'). With `authorization.enabled: false`
 * nothing is filtered and every answer is the unfiltered one.
 */
import type { GatewayConfig } from '../../schemas/config.js';
import { RESOURCE_KINDS, type AccessDecision, type CapabilityKind, type ResourceKind } from '../../schemas/access-config.js';
import { ALLOWED, type AccessCheck } from '../routing/access-check.js';
import type { CallerContext } from '../routing/caller.js';
import { matchTemplate, type RouteTable } from '../routing/route-table.js';
import { AccessPolicy } from './access-policy.js';
import { capabilityNames } from './resource-names.js';

export type ClientLists = RouteTable['lists'];

type AccessConfig = Pick<GatewayConfig, 'authorization' | 'backends'>;

/** Bounds of the verdict cache: role sets come from tokens, and template URIs are unbounded. */
const MAX_ROLE_SETS = 1000;
const MAX_VERDICTS_PER_ROLE_SET = 10_000;
const NO_ROLES: readonly string[] = [];

export class AccessControl implements AccessCheck {
  private on = false;
  private policy = new AccessPolicy({ default_effect: 'deny', policies: [] });
  private groups: ReadonlyMap<string, string> = new Map();
  private fingerprint = '';
  /** Role-set key → capability key → verdict. */
  private verdicts = new Map<string, Map<string, AccessDecision>>();
  /** Route table → role-set key → what that role set is shown. */
  private lists = new WeakMap<RouteTable, Map<string, ClientLists>>();

  constructor(config: AccessConfig) {
    this.configure(config);
  }

  get enabled(): boolean {
    return this.on;
  }

  /** Applies a (re)loaded config; true when what callers may see may have changed. */
  configure(config: AccessConfig): boolean {
    const groups = new Map(Object.entries(config.backends).map(([name, spec]) => [name, spec.group ?? 'default']));
    const fingerprint = JSON.stringify([config.authorization, [...groups]]);
    if (fingerprint === this.fingerprint) return false;
    this.fingerprint = fingerprint;
    // Off before and after (a backend's group changed, say): nobody sees anything else.
    const matters = this.on || config.authorization.enabled;
    this.on = config.authorization.enabled;
    this.policy = new AccessPolicy(config.authorization);
    this.groups = groups;
    this.verdicts = new Map();
    this.lists = new WeakMap();
    return matters;
  }

  /**
   * The management API's caller is not checked when it holds the management
   * token (no user); a person signed in as an identity of `incoming_auth`
   * (docs/management-api.md#roles) calls as that identity, policies and all.
   */
  check(caller: CallerContext, kind: CapabilityKind, name: string, backend: string): AccessDecision {
    if (!this.on || (caller.transport === 'management' && caller.userId === undefined)) return ALLOWED;
    return this.verdict(caller.roles ?? NO_ROLES, kind, name, backend);
  }

  /** What this caller may see of the route table's lists (the unfiltered lists themselves when nothing is hidden). */
  visible(routes: RouteTable, caller: Pick<CallerContext, 'transport' | 'roles'>): ClientLists {
    if (!this.on || caller.transport === 'management') return routes.lists;
    const roles = caller.roles ?? NO_ROLES;
    let byRoles = this.lists.get(routes);
    if (!byRoles) this.lists.set(routes, (byRoles = new Map<string, ClientLists>()));
    const key = roleKey(roles);
    let lists = byRoles.get(key);
    if (!lists) {
      lists = this.filter(routes, roles);
      if (byRoles.size >= MAX_ROLE_SETS) byRoles.clear();
      byRoles.set(key, lists);
    }
    return lists;
  }

  /**
   * `POST /authorization/check`: the verdict for `roles` on one policy name
   * (`tool:x`, `server:y`, …). A capability the route table knows is judged
   * as a call to it would be, with its backend's and group's names too.
   */
  explain(roles: readonly string[], resource: string, routes: RouteTable): AccessDecision {
    if (!this.on) return ALLOWED;
    const colon = resource.indexOf(':');
    const kind = resource.slice(0, colon) as ResourceKind;
    const name = resource.slice(colon + 1);
    const backend = colon > 0 && RESOURCE_KINDS.includes(kind) ? ownerOf(routes, kind, name) : undefined;
    const names = backend === undefined ? [resource] : capabilityNames(kind as CapabilityKind, name, backend, this.groups.get(backend));
    return this.policy.decide([...new Set(roles)].sort(), names);
  }

  private verdict(roles: readonly string[], kind: CapabilityKind, name: string, backend: string): AccessDecision {
    const rk = roleKey(roles);
    let cache = this.verdicts.get(rk);
    if (!cache) {
      if (this.verdicts.size >= MAX_ROLE_SETS) this.verdicts.clear();
      this.verdicts.set(rk, (cache = new Map<string, AccessDecision>()));
    }
    const key = `${kind}\u0000${name}\u0000${backend}`;
    let decision = cache.get(key);
    if (decision === undefined) {
      decision = this.policy.decide(roles, capabilityNames(kind, name, backend, this.groups.get(backend)));
      if (cache.size >= MAX_VERDICTS_PER_ROLE_SET) cache.clear();
      cache.set(key, decision);
    }
    return decision;
  }

  private filter(routes: RouteTable, roles: readonly string[]): ClientLists {
    const keep = <E, T>(entries: Iterable<[string, E]>, kind: CapabilityKind, backendOf: (e: E) => string, item: (e: E) => T, all: T[]): T[] => {
      const kept: T[] = [];
      for (const [name, e] of entries) if (this.verdict(roles, kind, name, backendOf(e)).allowed) kept.push(item(e));
      // Nothing hidden: the unfiltered array, whose JSON is already built.
      return kept.length === all.length ? all : kept;
    };
    return {
      tools: keep(
        routes.tools,
        'tool',
        (e) => e.backend,
        (e) => e.tool,
        routes.lists.tools,
      ),
      prompts: keep(
        routes.prompts,
        'prompt',
        (e) => e.backend,
        (e) => e.prompt,
        routes.lists.prompts,
      ),
      resources: keep(
        routes.resources,
        'resource',
        (e) => e.backend,
        (e) => e.resource,
        routes.lists.resources,
      ),
      resourceTemplates: keep(
        routes.templates.map((e): [string, typeof e] => [e.template.uriTemplate, e]),
        'resource',
        (e) => e.backend,
        (e) => e.template,
        routes.lists.resourceTemplates,
      ),
    };
  }
}

/** Roles arrive sorted and unique (runtime/access/identity.ts), so equal sets give equal keys. */
const roleKey = (roles: readonly string[]): string => roles.join('\u0000');

function ownerOf(routes: RouteTable, kind: ResourceKind, name: string): string | undefined {
  switch (kind) {
    case 'tool':
      return routes.tools.get(name)?.backend;
    case 'prompt':
      return routes.prompts.get(name)?.backend;
    case 'resource':
      return (routes.resources.get(name) ?? matchTemplate(routes, name))?.backend;
    default:
      return undefined;
  }
}
