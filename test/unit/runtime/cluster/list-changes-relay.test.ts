/**
 * The list changes one replica sees reach the listen streams of the others
 * (runtime/cluster/list-changes-relay.ts), each change once: two replicas'
 * relays over an in-process pub/sub, each with its own route table.
 */
import { describe, expect, it } from 'vitest';
import { ListChangesRelay } from '../../../../runtime/cluster/list-changes-relay.js';
import { buildRouteTable, type ListKind, type RouteTable } from '../../../../runtime/routing/route-table.js';
import { emptyCatalog } from '../../../../runtime/backends/backend-catalog.js';

/** Channels delivered at once, in order, to every handler (Redis delivers to the publisher too; the relay ignores its own). */
class MemoryBus {
  private readonly handlers = new Map<string, Set<(m: string) => void>>();
  hold(channel: string, handler: (m: string) => void): () => void {
    if (!this.handlers.has(channel)) this.handlers.set(channel, new Set());
    this.handlers.get(channel)!.add(handler);
    return () => this.handlers.get(channel)!.delete(handler);
  }
  publish(channel: string, message: string): void {
    for (const h of this.handlers.get(channel) ?? []) h(message);
  }
}

const table = (...tools: string[]): RouteTable =>
  buildRouteTable(
    [{ name: 'fx', spec: {}, catalog: { ...emptyCatalog(), tools: tools.map((name) => ({ name, inputSchema: { type: 'object' as const } })) } }],
    {
      strategy: 'prefix',
      separator: '_',
    },
  );

interface Replica {
  routes: RouteTable;
  /** What its listen streams were told by the relay (changes another replica saw). */
  told: ListKind[][];
  relay: ListChangesRelay;
  changes(routes: RouteTable, kinds: ListKind[]): ListKind[];
}

function replica(bus: MemoryBus, tag: string, routes: RouteTable): Replica {
  const told: ListKind[][] = [];
  const r: Replica = {
    routes,
    told,
    relay: new ListChangesRelay({ bus, channel: 'lists', tag, routes: (): RouteTable => r.routes, tell: (changed) => void told.push([...changed]) }),
    /** Its table changed: what its own listen streams are told. */
    changes(routes: RouteTable, kinds: ListKind[]): ListKind[] {
      r.routes = routes;
      return [...r.relay.local(new Set(kinds))];
    },
  };
  r.relay.start();
  return r;
}

describe('list changes relayed between replicas', () => {
  it('a change only one replica sees reaches the other’s streams; one the other already has does not', () => {
    const bus = new MemoryBus();
    const a = replica(bus, 'a', table('x'));
    const b = replica(bus, 'b', table('x'));
    expect(b.changes(table('x', 'fresh'), ['tools'])).toEqual(['tools']);
    expect(a.told).toEqual([['tools']]);
    // A's table catching up later is not told again; B hearing A's relay of what B already has is not told.
    expect(a.changes(table('x', 'fresh'), ['tools'])).toEqual([]);
    expect(b.told).toEqual([]);
  });

  it('a change every replica sees is told once per replica, whichever comes first', () => {
    const bus = new MemoryBus();
    const a = replica(bus, 'a', table('x'));
    const b = replica(bus, 'b', table('x'));
    const c = replica(bus, 'c', table('x'));
    // B first: A and C are told by the relay; their own tables catching up tell nobody again.
    expect(b.changes(table('x', 'y'), ['tools'])).toEqual(['tools']);
    expect(a.changes(table('x', 'y'), ['tools'])).toEqual([]);
    expect(c.changes(table('x', 'y'), ['tools'])).toEqual([]);
    expect([a.told, b.told, c.told]).toEqual([[['tools']], [], [['tools']]]);
  });

  it('a change its own table makes without a new list (a policy reload) is still told', () => {
    const bus = new MemoryBus();
    const a = replica(bus, 'a', table('x'));
    replica(bus, 'b', table('x'));
    expect(a.changes(a.routes, ['tools', 'prompts'])).toEqual(['tools', 'prompts']);
  });
});
