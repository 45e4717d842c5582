/**
 * The aggregate catalog: every Ready backend's tools, prompts, resources and
 * resource templates after filters, renames and the conflict strategy, plus
 * the routes from exposed names back to `[backend, original]`.
 *
 * A snapshot is immutable and rebuilt as a whole whenever any backend's
 * catalog changes; lookups on the request path are then single Map reads,
 * and list responses are prebuilt arrays.
 */
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import { UriTemplate } from '@modelcontextprotocol/client';
import type { BackendSpec, ConflictStrategy, FilterRuleSpec } from '../../schemas/config.js';
import type { HoldReason } from '../../schemas/pinning.js';
import { toolNameProblem } from '../../schemas/tool-name.js';
import type { BackendCatalog, CatalogKind } from '../backends/backend-catalog.js';
import { compileFilter } from './name-filter.js';

/** The lists a client sees (resource templates change with resources). */
export type ListKind = 'tools' | 'prompts' | 'resources';
type Renames = NonNullable<BackendSpec['rename']>['tools'];

export interface Route {
  backend: string;
  /** Name (tools, prompts) or URI (resources) at the backend. */
  original: string;
}

export interface ToolEntry extends Route {
  tool: Tool;
  renamed: boolean;
  /** Hidden by the backend's filters: listed for operators, never exposed to clients. */
  filtered: boolean;
  /** Hidden because this backend keeps the same exposed name (strategies `first-wins`, `priority`). */
  hiddenBy?: string;
  /** Hidden because the exposed name breaks the MCP tool-name rules: why. */
  nameError?: string;
  /** Waits for an operator's approval of its definition (docs/tool-pinning.md); hidden from clients when `quarantined`. */
  hold?: Hold;
}

export interface PromptEntry extends Route {
  prompt: Prompt;
  renamed: boolean;
  filtered: boolean;
  hiddenBy?: string;
  hold?: Hold;
}

/** Why a definition waits for approval, and whether clients are kept from it meanwhile. */
export interface Hold {
  reason: HoldReason;
  quarantined: boolean;
}

/** A quarantined tool or prompt: a call to it is told so, and why. */
export interface QuarantinedRoute extends Route {
  reason: HoldReason;
}

/** One of a backend's tools or prompts that its filters let through, as the backend listed it and as it would be exposed. */
export interface Offered<T> {
  original: string;
  exposed: string;
  item: T;
}

/**
 * Checks a backend's definitions against their pins (runtime/pinning) each
 * time the table is built, that is when a catalog changes: never per call.
 * Answers the held ones by the backend's own names.
 */
export interface DefinitionReview {
  review(
    backend: string,
    offered: { tools: Array<Offered<Tool>>; prompts: Array<Offered<Prompt>> },
    session: object | undefined,
  ): { tools: ReadonlyMap<string, Hold>; prompts: ReadonlyMap<string, Hold> };
}

export interface ResourceEntry extends Route {
  resource: Resource;
  filtered: boolean;
  hiddenBy?: string;
}

export interface TemplateEntry extends Route {
  template: ResourceTemplate;
  matcher: UriTemplate;
}

export interface Conflict {
  kind: 'tool' | 'prompt' | 'resource';
  name: string;
  /** Backend that keeps the name. */
  winner: string;
  /** Backend whose capability (or, under `error`, whole catalog) was left out. */
  loser: string;
}

/** What shapes a backend's entries: its filters and renames (the gateway's own capabilities have neither). */
export type RouteShaping = Pick<BackendSpec, 'filters' | 'rename'>;

export interface BackendInput {
  name: string;
  spec: RouteShaping;
  catalog: BackendCatalog;
  /** Names are served as they are (the gateway's own, e.g. skills): no prefix; a clash leaves them out instead of the backend. */
  exact?: boolean;
  /** What serves the catalog now (the connection): told to the definition review, a new one is a new session with the backend. */
  session?: object;
}

export interface RouteTable {
  tools: Map<string, ToolEntry>;
  prompts: Map<string, PromptEntry>;
  resources: Map<string, ResourceEntry>;
  templates: TemplateEntry[];
  /** Everything including filtered entries, for the management API. */
  all: { tools: ToolEntry[]; prompts: PromptEntry[]; resources: ResourceEntry[] };
  /** Prebuilt list results for clients. */
  lists: { tools: Tool[]; prompts: Prompt[]; resources: Resource[]; resourceTemplates: ResourceTemplate[] };
  /**
   * Per list, the shortest `ttlMs` any serving backend gave for its own (none
   * said: absent): a 2026-07-28 client may keep the merged list no longer.
   */
  listTtlMs: Partial<Record<CatalogKind, number>>;
  conflicts: Conflict[];
  /** Backends left out entirely by the `error` strategy, with the reason. */
  rejected: Map<string, string>;
  /**
   * Exposed names and URIs of backends that are configured but not serving
   * (reconnecting, failed), as they were when they last served: a call to one
   * is told which backend is down instead of "unknown tool".
   */
  unavailable: Map<string, Route>;
  /** Exposed names held back until an operator approves their definitions (never listed to clients). */
  quarantined: { tools: Map<string, QuarantinedRoute>; prompts: Map<string, QuarantinedRoute> };
}

export interface ConflictPolicy {
  strategy: ConflictStrategy;
  separator: string;
  /** Strategy `priority`: the backends that win a name, first first; the others follow in config order. */
  order?: readonly string[];
}

export const emptyRouteTable = (): RouteTable => buildRouteTable([], { strategy: 'prefix', separator: '_' });

/**
 * Backends must be given in config order: that order decides every conflict
 * (under `priority`, after the backends its `order` names).
 * `resting` are backends not serving now, with the catalog they last served:
 * their names fill `unavailable` where no serving backend holds them.
 * `review` decides which serving definitions are held back (the gateway's own are not reviewed).
 */
export function buildRouteTable(inConfigOrder: BackendInput[], policy: ConflictPolicy, resting: BackendInput[] = [], review?: DefinitionReview): RouteTable {
  const backends = precedence(inConfigOrder, policy);
  const snap: RouteTable = {
    tools: new Map(),
    prompts: new Map(),
    resources: new Map(),
    templates: [],
    all: { tools: [], prompts: [], resources: [] },
    lists: { tools: [], prompts: [], resources: [], resourceTemplates: [] },
    listTtlMs: {},
    conflicts: [],
    rejected: new Map(),
    unavailable: new Map(),
    quarantined: { tools: new Map(), prompts: new Map() },
  };
  for (const backend of backends) {
    const exposed = exposeBackend(backend, policy);
    const candidate = review && !backend.exact ? withHolds(exposed, backend, review) : exposed;
    const clashes = findClashes(snap, candidate);
    if (policy.strategy === 'error' && clashes.length > 0 && !backend.exact) {
      snap.conflicts.push(...clashes);
      snap.rejected.set(backend.name, describeClashes(clashes));
      continue;
    }
    admit(snap, candidate, clashes);
    keepShorterTtls(snap.listTtlMs, backend.catalog.listTtlMs);
  }
  for (const backend of precedence(resting, policy)) {
    const candidate = exposeBackend(backend, policy);
    const entries: Array<[string, Route]> = [
      ...candidate.tools.filter((t) => !t.nameError).map((t): [string, Route] => [t.tool.name, t]),
      ...candidate.prompts.map((p): [string, Route] => [p.prompt.name, p]),
      ...candidate.resources.map((r): [string, Route] => [r.resource.uri, r]),
    ];
    for (const [name, route] of entries) {
      if (!snap.tools.has(name) && !snap.prompts.has(name) && !snap.resources.has(name))
        snap.unavailable.set(name, { backend: route.backend, original: route.original });
    }
  }
  snap.lists.tools = [...snap.tools.values()].map((e) => e.tool);
  snap.lists.prompts = [...snap.prompts.values()].map((e) => e.prompt);
  snap.lists.resources = [...snap.resources.values()].map((e) => e.resource);
  snap.lists.resourceTemplates = snap.templates.map((e) => e.template);
  return snap;
}

/**
 * The order in which backends claim names. `priority` moves the backends its
 * `order` lists to the front, in that order (a stable sort keeps config order
 * among the rest); the gateway's own capabilities (`exact`) stay last.
 */
function precedence(backends: BackendInput[], policy: ConflictPolicy): BackendInput[] {
  if (policy.strategy !== 'priority' || !policy.order?.length) return backends;
  const order = policy.order;
  const rank = (b: BackendInput) => {
    const listed = order.indexOf(b.name);
    return b.exact ? order.length + 1 : listed >= 0 ? listed : order.length;
  };
  return [...backends].sort((a, b) => rank(a) - rank(b));
}

/** Finds the template entry whose URI template matches, in the order backends claim names. */
export function matchTemplate(snap: RouteTable, uri: string): TemplateEntry | undefined {
  return snap.templates.find((t) => t.matcher.match(uri) !== null);
}

interface Candidate {
  name: string;
  tools: ToolEntry[];
  prompts: PromptEntry[];
  resources: ResourceEntry[];
  templates: TemplateEntry[];
}

function exposeBackend({ name, spec, catalog, exact }: BackendInput, policy: ConflictPolicy): Candidate {
  const prefix = policy.strategy === 'prefix' && !exact ? `${name}${policy.separator}` : '';
  const resourceFilter = compileFilter(spec.filters?.resources);
  const named = <T extends { name: string; description?: string }>(items: T[], filter: FilterRuleSpec | undefined, renames: Renames | undefined) => {
    const passes = compileFilter(filter);
    return items.map((item) => {
      const rename = renames && Object.hasOwn(renames, item.name) ? renames[item.name] : undefined;
      const description = rename?.description ?? item.description;
      const exposed: T = { ...item, name: prefix + (rename?.name ?? item.name), ...(description !== undefined ? { description } : {}) };
      return { backend: name, original: item.name, exposed, renamed: rename !== undefined, filtered: !passes(item.name) };
    });
  };
  // A name that breaks the MCP tool-name rules (a space, a right-to-left override, over 128 characters) is
  // left out rather than sanitised: a rewritten name could collide with another or look like one the backend
  // never had, while the operator can give it a valid name with `rename` (keyed by the original name). The
  // controller reports it (controller/status/hidden-capabilities.ts) and GET /capabilities says why.
  const tools = named(catalog.tools, spec.filters?.tools, spec.rename?.tools).map(({ exposed, ...e }): ToolEntry => {
    const nameError = toolNameProblem(exposed.name);
    return { ...e, tool: exposed, ...(nameError !== undefined ? { nameError } : {}) };
  });
  const prompts = named(catalog.prompts, spec.filters?.prompts, spec.rename?.prompts).map(({ exposed, ...e }): PromptEntry => ({ ...e, prompt: exposed }));
  // URIs are identifiers with meaning to the client; they are never rewritten. Filters match the URI or the name (a deny on either wins).
  const resources = catalog.resources.map((resource): ResourceEntry => ({
    backend: name,
    original: resource.uri,
    resource,
    filtered: !resourceFilter(resource.uri, resource.name),
  }));
  const templates = catalog.resourceTemplates
    .filter((t) => resourceFilter(t.uriTemplate, t.name))
    .flatMap((template): TemplateEntry[] => {
      try {
        return [{ backend: name, original: template.uriTemplate, template, matcher: new UriTemplate(template.uriTemplate) }];
      } catch {
        return []; // an unparseable template cannot be routed; leave it out
      }
    });
  return { name, tools, prompts, resources, templates };
}

/**
 * The candidate with its held definitions marked. Only what clients could
 * be offered is reviewed: a filtered tool or an unusable name is not.
 * The entries are in catalog order (exposeBackend maps one to one).
 */
function withHolds(c: Candidate, { catalog, session }: BackendInput, review: DefinitionReview): Candidate {
  const tools = c.tools.flatMap((t, i) => (t.filtered || t.nameError ? [] : [{ original: t.original, exposed: t.tool.name, item: catalog.tools[i]! }]));
  const prompts = c.prompts.flatMap((p, i) => (p.filtered ? [] : [{ original: p.original, exposed: p.prompt.name, item: catalog.prompts[i]! }]));
  const holds = review.review(c.name, { tools, prompts }, session);
  if (holds.tools.size === 0 && holds.prompts.size === 0) return c;
  return {
    ...c,
    tools: c.tools.map((t) => {
      const hold = holds.tools.get(t.original);
      return hold ? { ...t, hold } : t;
    }),
    prompts: c.prompts.map((p) => {
      const hold = holds.prompts.get(p.original);
      return hold ? { ...p, hold } : p;
    }),
  };
}

function findClashes(snap: RouteTable, c: Candidate): Conflict[] {
  const clashes: Conflict[] = [];
  const check = <E extends Route>(kind: Conflict['kind'], map: Map<string, E>, key: string) => {
    const owner = map.get(key);
    if (owner && owner.backend !== c.name) clashes.push({ kind, name: key, winner: owner.backend, loser: c.name });
  };
  for (const t of c.tools) if (!t.filtered && !t.nameError && !t.hold?.quarantined) check('tool', snap.tools, t.tool.name);
  for (const p of c.prompts) if (!p.filtered && !p.hold?.quarantined) check('prompt', snap.prompts, p.prompt.name);
  for (const r of c.resources) if (!r.filtered) check('resource', snap.resources, r.resource.uri);
  // The same URI template twice (the same server configured twice) would be listed twice and only the first could ever match.
  for (const t of c.templates) {
    const owner = snap.templates.find((e) => e.template.uriTemplate === t.template.uriTemplate);
    if (owner && owner.backend !== c.name) clashes.push({ kind: 'resource', name: t.template.uriTemplate, winner: owner.backend, loser: c.name });
  }
  return clashes;
}

function admit(snap: RouteTable, c: Candidate, clashes: Conflict[]): void {
  // Which backend keeps each name this one lost; the entry says so (GET /capabilities shows it).
  const lost = new Map(clashes.map((x) => [`${x.kind}:${x.name}`, x.winner]));
  snap.conflicts.push(...clashes);
  for (const t of c.tools) {
    const winner = lost.get(`tool:${t.tool.name}`);
    snap.all.tools.push(winner === undefined || t.filtered ? t : { ...t, hiddenBy: winner });
    if (t.filtered || t.nameError || winner !== undefined) continue;
    if (t.hold?.quarantined) snap.quarantined.tools.set(t.tool.name, { backend: t.backend, original: t.original, reason: t.hold.reason });
    else snap.tools.set(t.tool.name, t);
  }
  for (const p of c.prompts) {
    const winner = lost.get(`prompt:${p.prompt.name}`);
    snap.all.prompts.push(winner === undefined || p.filtered ? p : { ...p, hiddenBy: winner });
    if (p.filtered || winner !== undefined) continue;
    if (p.hold?.quarantined) snap.quarantined.prompts.set(p.prompt.name, { backend: p.backend, original: p.original, reason: p.hold.reason });
    else snap.prompts.set(p.prompt.name, p);
  }
  for (const r of c.resources) {
    const winner = lost.get(`resource:${r.resource.uri}`);
    snap.all.resources.push(winner === undefined || r.filtered ? r : { ...r, hiddenBy: winner });
    if (!r.filtered && winner === undefined) snap.resources.set(r.resource.uri, r);
  }
  snap.templates.push(...c.templates.filter((t) => !lost.has(`resource:${t.template.uriTemplate}`)));
}

/** Each list is kept no longer than the shortest time any backend serving part of it allowed. */
function keepShorterTtls(shortest: Partial<Record<CatalogKind, number>>, said: BackendCatalog['listTtlMs']): void {
  if (!said) return;
  for (const [kind, ttlMs] of Object.entries(said) as Array<[CatalogKind, number]>) shortest[kind] = Math.min(shortest[kind] ?? ttlMs, ttlMs);
}

function describeClashes(clashes: Conflict[]): string {
  const first = clashes.slice(0, 3).map((x) => `${x.kind} '${x.name}' is also exposed by '${x.winner}'`);
  const more = clashes.length > 3 ? ` (and ${clashes.length - 3} more)` : '';
  return `name conflict: ${first.join('; ')}${more}`;
}
