/**
 * Backend → client traffic (runtime/routing/client-fanout.ts): which client
 * sessions and listen streams get a list change, a resource update and a
 * log message, and which session answers a backend request no call
 * explains; with the authorization policies on, only the backend's callers
 * hear from it. The endpoints record what reaches them; the subscription
 * index is the real one.
 */
import { describe, expect, it } from 'vitest';
import { ClientFanout, type ClientNotice, type ListenEndpoint } from '../../../../runtime/routing/client-fanout.js';
import { SubscriptionIndex } from '../../../../runtime/routing/subscription-index.js';
import type { CallerContext, PeerMessage, RequestStream } from '../../../../runtime/routing/caller.js';
import type { ListKind } from '../../../../runtime/routing/route-table.js';
import { silentLogger } from '../../../../runtime/observability/logging/logger.js';
import { RpcRefusal } from '../../../../schemas/errors.js';
import { RecordingSession, directory } from '../../../helpers/client-endpoints.js';

class RecordingListener implements ListenEndpoint {
  readonly lists: ListKind[] = [];
  readonly updates: ClientNotice[] = [];
  constructor(readonly id: string) {}
  listChanged(kind: ListKind): void {
    this.lists.push(kind);
  }
  resourceUpdated(n: ClientNotice): void {
    this.updates.push(n);
  }
}

const logMessage = (level: string, data: string, logger?: string): ClientNotice => ({
  method: 'notifications/message',
  params: { level, data, ...(logger ? { logger } : {}) },
});
const caller = (sessionId: string, requestId?: number, requestStream?: RequestStream): CallerContext => ({
  sessionId,
  transport: 'streamable-http',
  ...(requestId !== undefined ? { requestId } : {}),
  ...(requestStream ? { requestStream } : {}),
});

describe('client fan-out', () => {
  it('list changes go to every initialized session and every listen stream, once per kind', () => {
    const ready = new RecordingSession('ready', 1);
    const starting = new RecordingSession('starting', 2, { initialized: false });
    const fanout = new ClientFanout(directory(ready, starting), new SubscriptionIndex(), silentLogger());
    const listener = new RecordingListener('listen-1');
    const remove = fanout.addListener(listener);
    fanout.listsChanged(new Set<ListKind>(['tools', 'prompts']));
    expect(ready.notices.map((n) => n.notice.method)).toEqual(['notifications/tools/list_changed', 'notifications/prompts/list_changed']);
    expect(starting.notices).toEqual([]);
    expect(listener.lists).toEqual(['tools', 'prompts']);
    remove();
    fanout.listsChanged(new Set<ListKind>(['resources']));
    expect(listener.lists).toEqual(['tools', 'prompts']);
  });

  it('a resource update reaches only the sessions and listen streams subscribed to its URI', () => {
    const subscribed = new RecordingSession('subscribed', 1);
    const other = new RecordingSession('other', 2);
    const index = new SubscriptionIndex();
    index.add('subscribed', 'file:///a');
    index.add('listen-1', 'file:///a');
    index.add('other', 'file:///b');
    const fanout = new ClientFanout(directory(subscribed, other), index, silentLogger());
    const listener = new RecordingListener('listen-1');
    fanout.addListener(listener);
    const update: ClientNotice = { method: 'notifications/resources/updated', params: { uri: 'file:///a' } };
    fanout.notify('b', update, []);
    expect(subscribed.notices).toEqual([{ notice: update }]);
    expect(other.notices).toEqual([]);
    expect(listener.updates).toEqual([update]);
  });

  it("a log message goes to every session whose level admits it, named after the backend, tied to that session's request in flight there", () => {
    const debug = new RecordingSession('debug', 1, { logLevel: 'debug' });
    const errorsOnly = new RecordingSession('errors-only', 2, { logLevel: 'error' });
    const unset = new RecordingSession('unset', 3);
    const fanout = new ClientFanout(directory(debug, errorsOnly, unset), new SubscriptionIndex(), silentLogger());
    fanout.notify('mem', logMessage('info', 'hello'), [caller('debug', 7)]);
    const named = logMessage('info', 'hello', 'mem');
    expect(debug.notices).toEqual([{ notice: named, related: 7 }]);
    expect(errorsOnly.notices).toEqual([]);
    expect(unset.notices).toEqual([{ notice: named }]);
    // A logger the backend named stays.
    fanout.notify('mem', logMessage('error', 'bad', 'db'), []);
    expect(errorsOnly.notices).toEqual([{ notice: logMessage('error', 'bad', 'db') }]);
  });

  it('a stateless request in flight takes a log message on its own stream, only at the level it asked for; none when it asked for none', () => {
    const got: Record<string, PeerMessage[]> = { warning: [], none: [] };
    const stream = (logLevel: string | undefined, into: PeerMessage[]): RequestStream => ({ logLevel, notify: (n) => into.push(n) });
    const fanout = new ClientFanout(directory(), new SubscriptionIndex(), silentLogger());
    const inFlight = [caller('', 1, stream('warning', got.warning!)), caller('', 2, stream(undefined, got.none!))];
    fanout.notify('mem', logMessage('info', 'chatty'), inFlight);
    fanout.notify('mem', logMessage('error', 'bad'), inFlight);
    expect(got.warning).toEqual([logMessage('error', 'bad', 'mem')]);
    expect(got.none).toEqual([]);
  });

  it('a backend request no call explains goes to the most recently active initialized session able to answer it', async () => {
    const old = new RecordingSession('old', 1, { capabilities: ['sampling'] });
    const recent = new RecordingSession('recent', 5, { capabilities: ['sampling'] });
    const newestWithout = new RecordingSession('newest-without', 9, { capabilities: ['roots'] });
    const notReady = new RecordingSession('not-ready', 10, { initialized: false, capabilities: ['sampling'] });
    const fanout = new ClientFanout(directory(old, recent, newestWithout, notReady), new SubscriptionIndex(), silentLogger());
    const signal = new AbortController().signal;
    expect(await fanout.requestAnyClient({ method: 'sampling/createMessage', params: {} }, signal)).toEqual({ answeredBy: 'recent' });
    expect(await fanout.requestAnyClient({ method: 'roots/list' }, signal)).toEqual({ answeredBy: 'newest-without' });
    // Nobody can: roots/list is answered with no roots, anything else refused.
    const none = new ClientFanout(directory(notReady), new SubscriptionIndex(), silentLogger());
    expect(await none.requestAnyClient({ method: 'roots/list' }, signal)).toEqual({ roots: [] });
    await expect(none.requestAnyClient({ method: 'elicitation/create', params: {} }, signal)).rejects.toBeInstanceOf(RpcRefusal);
  });

  it('with the policies on, a backend reaches only its callers: log messages only where a request is in flight, unexplained requests nobody', async () => {
    const calling = new RecordingSession('calling', 1, { capabilities: ['roots', 'sampling'] });
    const bystander = new RecordingSession('bystander', 2, { capabilities: ['roots', 'sampling'] });
    const fanout = new ClientFanout(directory(calling, bystander), new SubscriptionIndex(), silentLogger(), () => true);
    fanout.notify('mem', logMessage('info', 'x'), [caller('calling', 3)]);
    expect(calling.notices).toHaveLength(1);
    expect(bystander.notices).toEqual([]);
    const signal = new AbortController().signal;
    expect(await fanout.requestAnyClient({ method: 'roots/list' }, signal)).toEqual({ roots: [] });
    await expect(fanout.requestAnyClient({ method: 'sampling/createMessage', params: {} }, signal)).rejects.toBeInstanceOf(RpcRefusal);
    expect([...calling.requests, ...bystander.requests]).toEqual([]);
  });

  it('other backend notifications are not forwarded', () => {
    const s = new RecordingSession('s', 1);
    new ClientFanout(directory(s), new SubscriptionIndex(), silentLogger()).notify('b', { method: 'notifications/progress', params: {} }, [caller('s', 1)]);
    expect(s.notices).toEqual([]);
  });
});
