/**
 * The clients seen without a session: one entry per program, version and
 * user, counted and ordered by when each was last seen, whether a request
 * comes from the same client as the one before it (the fast path) or not.
 */
import { describe, expect, it } from 'vitest';
import { RecentClients } from '../../../../../api/mcp/stateless/recent-clients.js';

const caller = (name: string, version?: string, userId?: string) => ({
  client: { name, ...(version !== undefined && { version }) },
  ...(userId !== undefined && { userId }),
  protocolVersion: '2026-07-28',
});

describe('RecentClients', () => {
  it('counts each client, most recently seen first, with runs of one client and switches between them', () => {
    const clients = new RecentClients('r1');
    const order: Array<[ReturnType<typeof caller>, number]> = [
      [caller('a', '1'), 1],
      [caller('b', '1'), 2],
      [caller('b', '1'), 3],
      [caller('a', '1'), 4],
      [caller('c', '1'), 5],
      [caller('c', '1'), 6],
      [caller('a', '1'), 7],
    ];
    for (const [who, at] of order) clients.record(who, at * 1000);
    const records = clients.records();
    expect(records.map((r) => [r.name, r.requests])).toEqual([
      ['a', 3],
      ['c', 2],
      ['b', 2],
    ]);
    expect(records[0]).toMatchObject({ first_seen: new Date(1000).toISOString(), last_seen: new Date(7000).toISOString(), replica: 'r1' });
    expect(records[1]).toMatchObject({ first_seen: new Date(5000).toISOString(), last_seen: new Date(6000).toISOString() });
  });

  it('moves a client seen again to the front, also when the one before it came back in between', () => {
    const clients = new RecentClients('r1');
    for (const [who, at] of [
      [caller('a'), 1],
      [caller('b'), 2],
      [caller('a'), 3],
      [caller('b'), 4],
    ] as const)
      clients.record(who, at);
    expect(clients.records().map((r) => [r.name, r.requests])).toEqual([
      ['b', 2],
      ['a', 2],
    ]);
  });

  it('keeps apart, even back to back, the same program at another version, as another user, or with no version', () => {
    const clients = new RecentClients('r1');
    for (const who of [caller('a', '1'), caller('a', '2'), caller('a', '2', 'u1'), caller('a', '2', 'u1'), caller('a'), caller('a', '1')])
      clients.record(who, 1);
    const records = clients.records();
    expect(records.map((r) => [r.version, r.user_id, r.requests])).toEqual([
      ['1', null, 2],
      [null, null, 1],
      ['2', 'u1', 2],
      ['2', null, 1],
    ]);
  });
});
