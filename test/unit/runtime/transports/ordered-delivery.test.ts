/**
 * runtime/transports/ordered-delivery.ts as a unit, against an inner
 * transport whose sends complete when the test says so: what the backend
 * receives keeps the order the gateway sent it in.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { OrderedDeliveryTransport, ORDERED_SEND_WAIT_MS } from '../../../../runtime/transports/ordered-delivery.js';

/** Records when each send starts; each completes only when `finish(i)` is called. */
function slowInner() {
  const started: JSONRPCMessage[] = [];
  const finishers: Array<() => void> = [];
  const inner: Transport = {
    start: async () => {},
    close: async () => {},
    send: (m) =>
      new Promise<void>((resolve) => {
        started.push(m);
        finishers.push(resolve);
      }),
  };
  return { inner, started, finish: (i: number) => finishers[i]!() };
}

const tick = () => new Promise((r) => setImmediate(r));
const progress = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: n } });

describe('OrderedDeliveryTransport.send', () => {
  it('a notification or answer waits until the one before it is accepted', async () => {
    const { inner, started, finish } = slowInner();
    const t = new OrderedDeliveryTransport(inner);
    const sends = [t.send(progress(1)), t.send(progress(2)), t.send({ jsonrpc: '2.0', id: 7, result: {} })];
    await tick();
    expect(started).toEqual([progress(1)]);
    finish(0);
    await tick();
    expect(started).toEqual([progress(1), progress(2)]);
    finish(1);
    await tick();
    expect(started.at(-1)).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    finish(2);
    await Promise.all(sends);
  });

  it('requests are never held back', async () => {
    const { inner, started } = slowInner();
    const t = new OrderedDeliveryTransport(inner);
    void t.send(progress(1));
    void t.send(progress(2));
    await tick();
    // progress 1 is still in flight (never finished): progress 2 waits, the request does not.
    void t.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } });
    await tick();
    expect(started.map((m) => ('method' in m ? m.method : 'answer'))).toEqual(['notifications/progress', 'tools/call']);
  });

  it('a failed send fails its caller only; the next one still goes', async () => {
    const sent: JSONRPCMessage[] = [];
    let calls = 0;
    const inner: Transport = {
      start: async () => {},
      close: async () => {},
      send: async (m) => {
        if (calls++ === 0) throw new Error('POST failed');
        sent.push(m);
      },
    };
    const t = new OrderedDeliveryTransport(inner);
    await expect(t.send(progress(1))).rejects.toThrow('POST failed');
    await t.send(progress(2));
    expect(sent).toEqual([progress(2)]);
  });
});

describe('OrderedDeliveryTransport.send, a send that never completes', () => {
  it('holds the next notification back only for a bounded time', async () => {
    const { inner, started } = slowInner();
    const t = new OrderedDeliveryTransport(inner);
    void t.send(progress(1)); // never finished
    void t.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } });
    await tick();
    expect(started).toHaveLength(1);
    // Sent once the wait for the hung one runs out; the deadline only turns a hang into a failure.
    await vi.waitFor(() => expect(started.at(-1)).toMatchObject({ method: 'notifications/cancelled' }), { timeout: ORDERED_SEND_WAIT_MS * 10, interval: 20 });
  });
});
