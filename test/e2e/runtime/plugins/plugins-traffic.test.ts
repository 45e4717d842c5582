/**
 * The built-in plugins that shape traffic, each against a real gateway and a
 * real fixture backend: rate_limiter (a limit hit, `retry_after_s`, the
 * window reset), circuit_breaker (opening, half-opening, closing on a backend
 * that fails then recovers), retry_with_backoff (only hinted tools, only
 * timeouts and transport errors) and response_cache (hits, canonical
 * arguments, isolation between sessions, never an `isError` result).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Harness } from '../../../helpers/gateway-harness.js';
import { waitFor } from '../../../helpers/wait.js';
import { managementClient } from '../../../helpers/management-client.js';
import { auditRecords, callText, guardrailBackend, pluginRecords, rpcError, startWithPlugins, textOf } from '../../../helpers/plugin-harness.js';
import { counterUri } from '../../../fixtures/tools-guardrails.js';

describe('rate_limiter', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startWithPlugins([
      { name: 'rate_limiter', settings: { max_requests: 2, window_s: 3, per: 'client' }, conditions: { tools: ['f_counter_write'] } },
      { name: 'rate_limiter', settings: { max_requests: 1, window_s: 600, per: 'session' }, conditions: { tools: ['f_echo'] } },
    ]);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('per client: over the limit a call fails with rate_limited and retry_after_s, never reaching the backend, until the window resets', async () => {
    const [a, b] = [await h.connect(), await h.connect()];
    // Two sessions of one client (one address) share its count.
    const outcomes = await Promise.allSettled([a, b, a].map((c) => c.callTool({ name: 'f_counter_write', arguments: {} })));
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(refused).toHaveLength(1);
    const err = await rpcError(Promise.reject((refused[0] as PromiseRejectedResult).reason));
    expect(err.message).toMatch(/Rate limit exceeded \(per client\)/);
    expect(err.data).toMatchObject({ error: 'rate_limited', plugin: 'rate_limiter', per: 'client' });
    expect((err.data as { retry_after_s: number }).retry_after_s).toBeGreaterThanOrEqual(1);

    // After the window the client may call again; the backend saw only the calls that were let through.
    const text = await waitFor(() => a.callTool({ name: 'f_counter_write', arguments: {} }).then(textOf, () => undefined), 'the window to reset', 20_000);
    expect(text).toBe('#3');
  });

  it('per session: each session has its own count', async () => {
    const [a, b] = [await h.connect(), await h.connect()];
    expect(await callText(a, 'f_echo', { text: 'a' })).toBe('a');
    expect(await callText(b, 'f_echo', { text: 'b' })).toBe('b');
    const err = await rpcError(a.callTool({ name: 'f_echo', arguments: { text: 'again' } }));
    expect(err.data).toMatchObject({ error: 'rate_limited', per: 'session' });
  });

  it('answers the management API with 429 and the same details', async () => {
    const api = managementClient(h.url);
    expect((await api.post('/tools/call', { tool: 'f_echo', arguments: { text: 'first' } })).status).toBe(200);
    const refused = await api.post('/tools/call', { tool: 'f_echo', arguments: { text: 'second' } });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'rate_limited', details: { plugin: 'rate_limiter', per: 'session' } });
  });

  it('audits and counts each block', async () => {
    const records = await auditRecords(h);
    const blocked = records.filter((r) => r.outcome.error_type === 'RateLimitedError');
    expect(blocked.length).toBeGreaterThanOrEqual(2);
    for (const r of blocked)
      expect(r.metadata.plugins).toEqual([expect.objectContaining({ plugin: 'rate_limiter', action: 'block', reason: 'rate_limited', enforced: true })]);
    const counted = (await pluginRecords(h)).reduce((n, p) => n + p.counters.blocks, 0);
    expect(counted).toBe(blocked.length);
  });
});

describe('circuit_breaker', () => {
  let h: Harness;
  let client: Client;
  const api = () => managementClient(h.url);
  const circuit = async () => ((await api().get('/backends')).body as { backends: Array<{ name: string; circuit: string | null }> }).backends[0].circuit;
  const flaky = (key: string, fail_times: number, fail_with: string) =>
    client.callTool({ name: 'f_flaky_write', arguments: { key, fail_times, fail_with, delay_ms: 30_000 } });
  const attempts = async (key: string) => Number(await callText(client, 'f_attempts', { key }));

  beforeAll(async () => {
    h = await startWithPlugins(
      [{ name: 'circuit_breaker', settings: { failure_threshold: 2, cooldown_s: 1 }, conditions: { tools: ['f_flaky_*', 'f_counter_error'] } }],
      { backends: { f: guardrailBackend({ timeouts: { request_s: 1 } }) } },
    );
    client = await h.connect();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('does not count what the backend answered about the request, nor isError results', async () => {
    expect(await circuit()).toBe('closed');
    for (let i = 0; i < 3; i++) {
      expect((await rpcError(flaky('invalid', 10, 'invalid'))).code).toBe(-32602);
      expect((await client.callTool({ name: 'f_counter_error', arguments: {} })).isError).toBe(true);
    }
    expect(await circuit()).toBe('closed');
  });

  it('opens after failure_threshold failures (an error, a timeout): calls fail fast naming the backend and when it is tried again', async () => {
    expect((await rpcError(flaky('cb', 3, 'error'))).code).toBe(-32603);
    expect((await rpcError(flaky('cb-timeout', 1, 'timeout'))).data).toMatchObject({ error: 'backend_timeout' });
    const opened = await h.waitForEvent((e) => e.stage === 'circuit_opened');
    expect(opened).toMatchObject({ backend: 'f', severity: 'error', details: { failures: 2, trial: false } });
    expect(['open', 'half_open']).toContain(await circuit());

    const refused = await rpcError(flaky('cb', 3, 'error'));
    expect(refused.message).toMatch(/Backend 'f' is failing: its circuit is open; it is tried again at \d{4}-\d\d-\d\dT/);
    expect(refused.data).toMatchObject({ error: 'circuit_open', backend: 'f' });
    expect(await attempts('cb')).toBe(1);
  });

  it('half-opens after the cooldown: a failed trial opens it again, a successful one closes it', async () => {
    await waitFor(async () => (await circuit()) === 'half_open', 'the circuit to half-open');
    expect((await rpcError(flaky('cb', 3, 'error'))).code).toBe(-32603);
    await h.waitForEvent((e) => e.stage === 'circuit_opened' && e.details.trial === true);
    expect(await attempts('cb')).toBe(2);

    await waitFor(async () => (await circuit()) === 'half_open', 'the circuit to half-open again');
    expect((await rpcError(flaky('cb', 3, 'error'))).code).toBe(-32603);
    await waitFor(async () => (await circuit()) === 'half_open', 'a third cooldown');
    // The backend recovers: the trial succeeds and the circuit closes.
    expect(textOf(await flaky('cb', 3, 'error'))).toBe('ok after 4 attempts');
    expect(await h.waitForEvent((e) => e.stage === 'circuit_closed')).toMatchObject({ backend: 'f', severity: 'info' });
    expect(await circuit()).toBe('closed');
    expect(textOf(await flaky('cb', 3, 'error'))).toBe('ok after 5 attempts');
  });

  it('with no circuit_breaker the record says null', async () => {
    const plain = await startWithPlugins([{ name: 'markdown_cleaner' }]);
    try {
      const body = (await managementClient(plain.url).get('/backends')).body as { backends: Array<{ circuit: unknown }> };
      expect(body.backends[0].circuit).toBeNull();
    } finally {
      await plain.close();
    }
  });
});

describe('retry_with_backoff', () => {
  let h: Harness;
  let client: Client;
  const call = (tool: string, key: string, fail_times: number, fail_with: string) =>
    client.callTool({ name: `f_${tool}`, arguments: { key, fail_times, fail_with, delay_ms: 30_000 } });
  const attempts = async (key: string) => Number(await callText(client, 'f_attempts', { key }));

  beforeAll(async () => {
    h = await startWithPlugins([{ name: 'retry_with_backoff', settings: { max_retries: 2, base_delay_ms: 10, max_delay_ms: 40 } }], {
      backends: { f: guardrailBackend({ timeouts: { request_s: 1 } }) },
    });
    client = await h.connect();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('retries a read-only tool and an idempotent one after timeouts, and audits each retry', async () => {
    expect(textOf(await call('flaky_read', 'r1', 2, 'timeout'))).toBe('ok after 3 attempts');
    expect(textOf(await call('flaky_idempotent', 'r2', 1, 'timeout'))).toBe('ok after 2 attempts');
    const record = (await auditRecords(h)).find((r) => r.target.capability_name === 'f_flaky_read');
    expect(record?.outcome.status).toBe('success');
    expect(record?.metadata.plugins).toEqual([
      expect.objectContaining({ plugin: 'retry_with_backoff', action: 'retry', attempt: 1, error_type: 'BackendTimeoutError' }),
      expect.objectContaining({ plugin: 'retry_with_backoff', action: 'retry', attempt: 2, error_type: 'BackendTimeoutError' }),
    ]);
    expect((await pluginRecords(h))[0].counters.retries).toBe(3);
  });

  it('gives up after max_retries', async () => {
    expect((await rpcError(call('flaky_read', 'r3', 5, 'timeout'))).data).toMatchObject({ error: 'backend_timeout' });
    expect(await attempts('r3')).toBe(3);
  });

  it('never retries a tool without the hints, nor an error the backend answered', async () => {
    expect((await rpcError(call('flaky_write', 'w1', 1, 'timeout'))).data).toMatchObject({ error: 'backend_timeout' });
    expect(await attempts('w1')).toBe(1);
    expect((await rpcError(call('flaky_read', 'e1', 1, 'error'))).code).toBe(-32603);
    expect(await attempts('e1')).toBe(1);
  });
});

describe('response_cache', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startWithPlugins([{ name: 'response_cache', settings: { ttl_s: 600, max_entries: 100 } }]);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers a read-only tool from the cache for the same arguments in any key order, and audits the hit', async () => {
    const c = await h.connect();
    const first = await callText(c, 'f_counter_read', { label: 'x', extra: { a: 1, b: [1, 2] } });
    expect(await callText(c, 'f_counter_read', { extra: { b: [1, 2], a: 1 }, label: 'x' })).toBe(first);
    expect(await callText(c, 'f_counter_read', { label: 'y' })).not.toBe(first);
    const hits = (await auditRecords(h)).filter((r) => r.metadata.plugins?.some((p) => p.action === 'cache_hit'));
    expect(hits).toHaveLength(1);
    expect(hits[0].outcome.status).toBe('success');
    expect((await pluginRecords(h))[0].counters.cache_hits).toBe(1);
  });

  it('keeps sessions apart: another client never gets this one’s answer', async () => {
    const [a, b] = [await h.connect(), await h.connect()];
    const ofA = await callText(a, 'f_counter_read', { label: 'iso' });
    const ofB = await callText(b, 'f_counter_read', { label: 'iso' });
    expect(ofB).not.toBe(ofA);
    expect(await callText(a, 'f_counter_read', { label: 'iso' })).toBe(ofA);
    expect(await callText(b, 'f_counter_read', { label: 'iso' })).toBe(ofB);
  });

  it('never caches a tool without readOnlyHint, nor an isError result', async () => {
    const c = await h.connect();
    expect(await callText(c, 'f_counter_write', { label: 'w' })).not.toBe(await callText(c, 'f_counter_write', { label: 'w' }));
    expect(await callText(c, 'f_counter_error', { label: 'e' })).not.toBe(await callText(c, 'f_counter_error', { label: 'e' }));
  });

  it('caches resources and prompts', async () => {
    const c = await h.connect();
    const read = async () => ((await c.readResource({ uri: counterUri('fixture') })).contents[0] as { text: string }).text;
    const first = await read();
    expect(await read()).toBe(first);
    const get = async () => ((await c.getPrompt({ name: 'f_counter', arguments: { topic: 't' } })).messages[0].content as { text: string }).text;
    const prompt = await get();
    expect(await get()).toBe(prompt);
  });
});
