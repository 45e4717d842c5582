/**
 * Traffic a backend starts (runtime/routing/backend-traffic.ts), with the
 * calls in flight (runtime/routing/in-flight-calls.ts) and the fan-out
 * (runtime/routing/client-fanout.ts) as the gateway wires them: a backend's
 * request goes to the newest caller in flight at that backend that can
 * answer, else to the fan-out; its notifications reach the fan-out with the
 * callers in flight there. Client sessions record what reaches them.
 */
import { describe, expect, it } from 'vitest';
import { BackendTraffic } from '../../../../runtime/routing/backend-traffic.js';
import { ClientFanout } from '../../../../runtime/routing/client-fanout.js';
import { InFlightCalls } from '../../../../runtime/routing/in-flight-calls.js';
import { SubscriptionIndex } from '../../../../runtime/routing/subscription-index.js';
import type { CallerContext, PeerMessage } from '../../../../runtime/routing/caller.js';
import { silentLogger } from '../../../../runtime/observability/logging/logger.js';
import { RecordingSession, directory } from '../../../helpers/client-endpoints.js';

/** A caller in flight whose client answers backend requests (records them), or one that cannot (the management API). */
function caller(sessionId: string, requestId: number, asked?: PeerMessage[]): CallerContext {
  return {
    sessionId,
    transport: asked ? 'streamable-http' : 'management',
    requestId,
    ...(asked && {
      sendRequest: async (request: PeerMessage) => {
        asked.push(request);
        return { answeredBy: `${sessionId}#${requestId}` };
      },
    }),
  };
}

const sampling: PeerMessage = { method: 'sampling/createMessage', params: { messages: [] } };

function wiring(...sessions: RecordingSession[]) {
  const inFlight = new InFlightCalls();
  const traffic = new BackendTraffic(inFlight, new ClientFanout(directory(...sessions), new SubscriptionIndex(), silentLogger()));
  return { inFlight, traffic };
}

describe('backend traffic', () => {
  it("a backend's request goes to the newest caller in flight at that backend that can answer; when it ends, to the one before", async () => {
    const { inFlight, traffic } = wiring();
    const asked: PeerMessage[] = [];
    const signal = new AbortController().signal;
    inFlight.add('mem', caller('a', 1, asked));
    const endB = inFlight.add('mem', caller('b', 2, asked));
    inFlight.add('mem', caller('mgmt', 3)); // newest, but it cannot answer
    inFlight.add('other', caller('c', 4, asked)); // in flight elsewhere
    expect(await traffic.onServerRequest('mem', sampling, signal)).toEqual({ answeredBy: 'b#2' });
    endB();
    expect(await traffic.onServerRequest('mem', sampling, signal)).toEqual({ answeredBy: 'a#1' });
    expect(asked).toEqual([sampling, sampling]);
  });

  it('a request no call in flight explains goes to the most recently active session that can answer it', async () => {
    const idle = new RecordingSession('idle', 1, { capabilities: ['sampling'] });
    const active = new RecordingSession('active', 2, { capabilities: ['sampling'] });
    const { inFlight, traffic } = wiring(idle, active);
    const end = inFlight.add('other', caller('c', 1, []));
    expect(await traffic.onServerRequest('mem', sampling, new AbortController().signal)).toEqual({ answeredBy: 'active' });
    end();
    expect(active.requests).toEqual([sampling]);
  });

  it("a backend's log message reaches the sessions tied to their newest request in flight there", () => {
    const calling = new RecordingSession('calling', 1);
    const idle = new RecordingSession('idle', 2);
    const { inFlight, traffic } = wiring(calling, idle);
    inFlight.add('mem', caller('calling', 5, []));
    inFlight.add('mem', caller('calling', 6, []));
    inFlight.add('other', caller('idle', 7, []));
    const message = { method: 'notifications/message', params: { level: 'info', data: 'x' } };
    traffic.onNotification('mem', message);
    const named = { method: 'notifications/message', params: { level: 'info', data: 'x', logger: 'mem' } };
    expect(calling.notices).toEqual([{ notice: named, related: 6 }]);
    expect(idle.notices).toEqual([{ notice: named }]);
  });
});

describe('calls in flight', () => {
  it('counts calls across backends, forgets each once ended (ending twice changes nothing), and says when none is left', async () => {
    const inFlight = new InFlightCalls();
    await inFlight.whenIdle(); // none: at once
    const a = caller('a', 1, []);
    const endA = inFlight.add('mem', a);
    const endB = inFlight.add('other', caller('b', 2, []));
    expect(inFlight.size).toBe(2);
    expect(inFlight.callers('mem')).toEqual([a]);
    let idle = false;
    const whenIdle = inFlight.whenIdle().then(() => (idle = true));
    endA();
    endA();
    expect(inFlight.size).toBe(1);
    expect(inFlight.callers('mem')).toEqual([]);
    expect(inFlight.latest('mem')).toBeUndefined();
    await Promise.resolve();
    expect(idle).toBe(false);
    endB();
    await whenIdle;
    expect(inFlight.size).toBe(0);
  });

  it('the same caller in flight twice at a backend (two requests of one session) stays until both end', () => {
    const inFlight = new InFlightCalls();
    const shared = caller('s', 1, []);
    const first = inFlight.add('mem', shared);
    inFlight.add('mem', shared);
    first();
    expect(inFlight.callers('mem')).toEqual([shared]);
    expect(inFlight.latest('mem')).toBe(shared);
    expect(inFlight.size).toBe(1);
  });

  it('ending a call that already ended leaves the other calls at that backend alone', () => {
    const inFlight = new InFlightCalls();
    const a = caller('a', 1, []);
    const b = caller('b', 2, []);
    const endA = inFlight.add('mem', a);
    inFlight.add('mem', b);
    endA();
    endA();
    expect(inFlight.callers('mem')).toEqual([b]);
    expect(inFlight.size).toBe(1);
  });
});
