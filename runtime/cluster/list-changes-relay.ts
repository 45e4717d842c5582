/**
 * A 2026-07-28 listen stream hears the list changes of every replica, not
 * only of the one holding it (`sessions.store: redis`). Each replica builds
 * its own route table from its own backend connections, so some changes
 * are seen by one replica only: a backend that tells only the connection
 * whose call changed it (a stdio backend runs once per replica; a 2025-11-25
 * HTTP backend notifies one session), a backend restarted or disabled
 * through one replica's management API. The replica that sees a change says
 * on `<prefix>:lists-changed` which lists changed and what each is now (a
 * digest of the list clients are sent); the others tell their listen
 * streams, unless their own table already holds that list.
 *
 * A change every replica sees (a pin approved, told through Redis; a backend
 * that tells every connection) would reach a stream twice: once relayed,
 * once when its own replica sees it. So a replica remembers, per list, what
 * it relayed ahead of its own table, and does not tell its streams again when
 * its table catches up with it.
 */
import { createHash } from 'node:crypto';
import type { ListenRelay } from '../routing/client-fanout.js';
import type { ListKind, RouteTable } from '../routing/route-table.js';
import { listResultJson } from '../transports/json-rpc.js';
import type { ClusterBus } from './cluster-bus.js';

/** What a replica says: the lists that changed, each with the digest of what it is now. */
interface ListsChanged {
  from: string;
  lists: Partial<Record<ListKind, string>>;
}

const KINDS: readonly ListKind[] = ['tools', 'prompts', 'resources'];

/** Digests of lists, per list array (a route table's lists are never changed in place). */
const digests = new WeakMap<readonly unknown[], string>();

export interface ListChangesRelayDeps {
  bus: Pick<ClusterBus, 'hold' | 'publish'>;
  channel: string;
  /** This replica's tag: it does not hear itself. */
  tag: string;
  /** This replica's route table now. */
  routes(): RouteTable;
  /** Tells this replica's listen streams (the fan-out). */
  tell(changed: ReadonlySet<ListKind>): void;
}

export class ListChangesRelay implements ListenRelay {
  /** Per list, what this replica's streams were told by another replica before its own table had it. */
  private readonly aheadOfTable = new Map<ListKind, string>();
  private started = false;

  constructor(private readonly deps: ListChangesRelayDeps) {}

  /** Hears the other replicas from now on, for the replica's life (across Redis outages: what is published during one is lost). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.deps.bus.hold(this.deps.channel, (text) => this.heard(text));
  }

  local(changed: ReadonlySet<ListKind>): ReadonlySet<ListKind> {
    if (changed.size === 0) return changed;
    const table = this.deps.routes();
    const lists: Partial<Record<ListKind, string>> = {};
    const untold = new Set<ListKind>();
    for (const kind of changed) {
      const now = digestOf(table, kind);
      lists[kind] = now;
      const ahead = this.aheadOfTable.get(kind);
      this.aheadOfTable.delete(kind);
      if (ahead !== now) untold.add(kind);
    }
    this.deps.bus.publish(this.deps.channel, JSON.stringify({ from: this.deps.tag, lists } satisfies ListsChanged));
    return untold;
  }

  private heard(text: string): void {
    const m = decode(text);
    if (!m || m.from === this.deps.tag) return;
    const table = this.deps.routes();
    const changed = new Set<ListKind>();
    for (const kind of KINDS) {
      const said = m.lists[kind];
      if (said === undefined || said === digestOf(table, kind) || said === this.aheadOfTable.get(kind)) continue;
      this.aheadOfTable.set(kind, said);
      changed.add(kind);
    }
    if (changed.size > 0) this.deps.tell(changed);
  }
}

/** The digest of what clients are sent for one list (resources: with the templates, which change with them). */
function digestOf(table: RouteTable, kind: ListKind): string {
  if (kind !== 'resources') return digest(kind, table.lists[kind]);
  return `${digest('resources', table.lists.resources)}.${digest('resourceTemplates', table.lists.resourceTemplates)}`;
}

function digest(field: string, list: readonly unknown[]): string {
  let d = digests.get(list);
  if (d === undefined) {
    d = createHash('sha256').update(listResultJson(field, list)).digest('base64url').slice(0, 22);
    digests.set(list, d);
  }
  return d;
}

function decode(text: string): ListsChanged | undefined {
  try {
    const m = JSON.parse(text) as Partial<ListsChanged>;
    return typeof m?.from === 'string' && typeof m.lists === 'object' && m.lists !== null ? (m as ListsChanged) : undefined;
  } catch {
    return undefined;
  }
}
