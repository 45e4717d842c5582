/**
 * The policies of the running config, applied: the router asks it before
 * each forwarded operation, the sessions ask it for the lists a caller may
 * see, the management API for a verdict. A reload replaces the policies for
 * the next request.
 *
 * It stays cheap per call: which policies can decide is cached per role set
 * and capability (without any `when`, that is the verdict itself), and
 * filtered lists per route table and role set (so their JSON is built once,
 * like the unfiltered ones'); when a `when` reads the caller's id or claims,
 * or the request, a list is kept per those too. With `authorization.enabled:
 * false` nothing is filtered and every answer is the unfiltered one.
 */
import type { GatewayConfig } from '../../schemas/config.js';
import { RESOURCE_KINDS, type AccessDecision, type CallFacts, type CapabilityKind, type ResourceKind, type ToolHints } from '../../schemas/access-config.js';
import { ALLOWED, type AccessCheck, type ListFacts } from '../routing/access-check.js';
import type { CallerContext } from '../routing/caller.js';
import { matchTemplate, type RouteTable } from '../routing/route-table.js';
import { AccessPolicy, type Candidates, type ConditionStep } from './access-policy.js';
import { factBindings, type FactName } from './condition-facts.js';
import { capabilityNames } from './resource-names.js';

export type ClientLists = RouteTable['lists'];

type AccessConfig = Pick<GatewayConfig, 'authorization' | 'backends'>;

/** Bounds of the verdict cache: role sets come from tokens, and template URIs are unbounded. */
const MAX_ROLE_SETS = 1000;
const MAX_VERDICTS_PER_ROLE_SET = 10_000;
const NO_ROLES: readonly string[] = [];
/** A list never has arguments; without request facts it has no request either. */
const LIST_UNKNOWN: ReadonlySet<FactName> = new Set(['arguments']);
const LIST_UNKNOWN_REQUEST: ReadonlySet<FactName> = new Set(['arguments', 'request']);

/** What POST /authorization/check answers: the verdict, why, and each `when` it evaluated on the way. */
export interface Explanation extends AccessDecision {
  reason: string;
  conditions: ConditionStep[];
  /** The `when` of the policy that decided, if it has one. */
  when?: string;
}

type Caller = Pick<CallerContext, 'transport' | 'roles' | 'userId'>;

export class AccessControl implements AccessCheck {
  private on = false;
  private policy = new AccessPolicy({ default_effect: 'deny', policies: [] });
  private groups: ReadonlyMap<string, string> = new Map();
  private fingerprint = '';
  /** Role-set key → capability key → the policies that may decide. */
  private verdicts = new Map<string, Map<string, Candidates>>();
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
  check(caller: CallerContext, kind: CapabilityKind, name: string, backend: string, facts?: CallFacts | (() => CallFacts)): AccessDecision {
    if (!this.on || (caller.transport === 'management' && caller.userId === undefined)) return ALLOWED;
    const roles = caller.roles ?? NO_ROLES;
    const candidates = this.candidates(roles, kind, name, backend);
    if (candidates.conditional.length === 0) return candidates.otherwise;
    return this.policy.settle(candidates, () =>
      factBindings({ userId: caller.userId, roles, kind, name, backend, facts: typeof facts === 'function' ? facts() : facts }),
    );
  }

  /** What this caller may see of the route table's lists (the unfiltered lists themselves when nothing is hidden). */
  visible(routes: RouteTable, caller: Caller, facts?: ListFacts): ClientLists {
    if (!this.on || caller.transport === 'management') return routes.lists;
    const roles = caller.roles ?? NO_ROLES;
    let byRoles = this.lists.get(routes);
    if (!byRoles) this.lists.set(routes, (byRoles = new Map<string, ClientLists>()));
    const key = this.listKey(roles, caller, facts);
    let lists = byRoles.get(key);
    if (!lists) {
      lists = this.filter(routes, roles, caller.userId, facts);
      if (byRoles.size >= MAX_ROLE_SETS) byRoles.clear();
      byRoles.set(key, lists);
    }
    return lists;
  }

  /**
   * `POST /authorization/check`: the verdict for `roles` on one policy name
   * (`tool:x`, `server:y`, …) with these facts, and the `when`s it took. A
   * capability the route table knows is judged as a call to it would be,
   * with its backend's and group's names and a tool's annotations too.
   */
  explain(roles: readonly string[], resource: string, routes: RouteTable, facts: CallFacts & { userId?: string } = {}): Explanation {
    if (!this.on) return { ...ALLOWED, reason: 'authorization is off: everything is allowed', conditions: [] };
    const colon = resource.indexOf(':');
    const kind = resource.slice(0, colon) as ResourceKind;
    const name = resource.slice(colon + 1);
    const backend = colon > 0 && RESOURCE_KINDS.includes(kind) ? ownerOf(routes, kind, name) : undefined;
    const names = backend === undefined ? [resource] : capabilityNames(kind as CapabilityKind, name, backend, this.groups.get(backend));
    const sorted = [...new Set(roles)].sort();
    const annotations = facts.annotations ?? (kind === 'tool' ? routes.tools.get(name)?.tool.annotations : undefined);
    const subject = { userId: facts.userId, roles: sorted, kind, name, backend: backend ?? '', facts: { ...facts, annotations } };
    const conditions: ConditionStep[] = [];
    const decision = this.policy.settle(this.policy.candidates(sorted, names), () => factBindings(subject), undefined, conditions);
    const when = decision.policyIndex === null ? undefined : this.policy.conditionOf(decision.policyIndex);
    return { ...decision, reason: reasonOf(decision, conditions, when), conditions, ...(when === undefined ? {} : { when }) };
  }

  private candidates(roles: readonly string[], kind: CapabilityKind, name: string, backend: string): Candidates {
    const rk = roleKey(roles);
    let cache = this.verdicts.get(rk);
    if (!cache) {
      if (this.verdicts.size >= MAX_ROLE_SETS) this.verdicts.clear();
      this.verdicts.set(rk, (cache = new Map<string, Candidates>()));
    }
    const key = `${kind}\u0000${name}\u0000${backend}`;
    let candidates = cache.get(key);
    if (candidates === undefined) {
      candidates = this.policy.candidates(roles, capabilityNames(kind, name, backend, this.groups.get(backend)));
      if (cache.size >= MAX_VERDICTS_PER_ROLE_SET) cache.clear();
      cache.set(key, candidates);
    }
    return candidates;
  }

  /** A list's cache key: its role set, and the caller and request facts when some `when` reads them. */
  private listKey(roles: readonly string[], caller: Caller, facts: ListFacts | undefined): string {
    const reads = this.policy.conditionsRead;
    let key = roleKey(roles);
    if (reads.has('caller')) key += `\u0001${caller.userId ?? ''}\u0001${JSON.stringify(facts?.claims ?? {})}`;
    if (reads.has('request') && facts?.request) key += `\u0001${JSON.stringify(facts.request)}`;
    return key;
  }

  /** A list's verdict on one entry: any `when` reading what a list cannot know may hold (./access-policy.ts). */
  private listed(roles: readonly string[], kind: CapabilityKind, name: string, backend: string, context: ListContext, annotations?: ToolHints): boolean {
    const candidates = this.candidates(roles, kind, name, backend);
    if (candidates.conditional.length === 0) return candidates.otherwise.allowed;
    const facts: CallFacts = { claims: context.facts?.claims, request: context.facts?.request, annotations };
    const unknown = context.facts?.request ? LIST_UNKNOWN : LIST_UNKNOWN_REQUEST;
    return this.policy.settle(candidates, () => factBindings({ userId: context.userId, roles, kind, name, backend, facts }), unknown).allowed;
  }

  private filter(routes: RouteTable, roles: readonly string[], userId: string | undefined, facts: ListFacts | undefined): ClientLists {
    const context: ListContext = { userId, facts };
    const keep = <E, T>(
      entries: Iterable<[string, E]>,
      kind: CapabilityKind,
      backendOf: (e: E) => string,
      item: (e: E) => T,
      all: T[],
      hintsOf?: (e: E) => ToolHints | undefined,
    ): T[] => {
      const kept: T[] = [];
      for (const [name, e] of entries) if (this.listed(roles, kind, name, backendOf(e), context, hintsOf?.(e))) kept.push(item(e));
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
        (e) => e.tool.annotations,
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

function reasonOf(decision: AccessDecision, conditions: readonly ConditionStep[], when: string | undefined): string {
  if (decision.policyIndex === null) {
    const passed = conditions.length > 0 ? `; ${conditions.length} policy \`when\` did not apply` : '';
    return `no policy matched${passed}: default_effect ${decision.effect}`;
  }
  const head = `policy ${decision.policyIndex} (${decision.effect})`;
  if (when === undefined) return `${head} matched the roles and the resource`;
  const step = conditions[conditions.length - 1];
  if (step?.outcome === 'error') return `${head}: its \`when\` failed (${step.error}); a failing \`when\` never lets a call through`;
  return `${head}: its \`when\` is true`;
}

interface ListContext {
  userId?: string;
  facts?: ListFacts;
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
