/**
 * Calls that need the client's input, bridged between the revisions (issue
 * 33): a 2026-07-28 client (v2 SDK, pinned) calls 2025-11-25 backends (the
 * 1.x fixture, over stdio and HTTP) that elicit, sample and ask for roots in
 * the middle of a call, and a 2026-07-28 backend (v2 fixture) that answers
 * `input_required`; a 2025-11-25 client (1.x SDK) calls the 2026-07-28
 * backend and is asked on its session. What a client did not declare it can
 * answer is -32021; the gateway's `requestState` is sealed and refused when
 * tampered with, replayed for other arguments or by another identity; a call
 * nobody answers is cancelled after the input timeout; each call is one
 * audit record with its rounds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { fixtureCommand, fixtureMainPath, startHttpFixture, type HttpFixture } from '../../../fixtures/spawn.js';
import { waitFor } from '../../../helpers/wait.js';
import { modernToolCall } from '../../../helpers/modern-call.js';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const MODERN = '2026-07-28';
const ALICE = 'alice-local-token-0123456789abcdef';
const BOB = 'bob-local-token-0123456789abcdef01';
const textOf = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0]!.text;

describe('calls that need the client input, across revisions', () => {
  let h: Harness;
  let legacyHttp: HttpFixture;
  let modernHttp: HttpFixture;
  const clients: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    [legacyHttp, modernHttp] = await Promise.all([
      startHttpFixture({ transport: 'streamable-http', name: 'legacyhttp' }),
      startHttpFixture({ transport: 'streamable-http', main: fixtureMainPath('v2-fixture-server-main'), name: 'modernhttp', args: ['--modern-only'] }),
    ]);
    const stdio = fixtureCommand(['--name', 'legacystdio', '--url-elicitation']);
    h = await startGateway({
      server: { host: '127.0.0.1', port: 0, management: { open: true }, input_rounds: { input_timeout_s: 2 } },
      incoming_auth: {
        type: 'local',
        tokens: [
          { name: 'alice', token: ALICE },
          { name: 'bob', token: BOB },
        ],
      },
      backends: {
        ls: { type: 'stdio', command: stdio.command, args: stdio.args },
        lh: { type: 'streamable-http', url: legacyHttp.url, protocol: '2025-11-25' },
        ms: { type: 'stdio', command: process.execPath, args: [fixtureMainPath('v2-fixture-server-main'), '--transport', 'stdio', '--name', 'modernstdio'] },
        mh: { type: 'streamable-http', url: modernHttp.url },
      },
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await h?.close();
    await Promise.all([legacyHttp?.stop(), modernHttp?.stop()]);
  });

  /** A v2 client pinned to 2026-07-28 that answers what it declares. */
  async function modernClient(capabilities: Record<string, unknown>, token = ALICE): Promise<Client> {
    const client = new Client({ name: 'modern-input', version: '2.0.0' }, { capabilities, versionNegotiation: { mode: { pin: MODERN } } });
    if (capabilities.elicitation)
      client.setRequestHandler('elicitation/create', async (r) => ({ action: 'accept', content: { answer: `yes to ${r.params.message}`, ok: true } }));
    if (capabilities.sampling) {
      client.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant', content: { type: 'text', text: 'a sample' }, model: 'm' }));
    }
    if (capabilities.roots) client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  }

  /** A 1.x SDK client: it speaks 2025-11-25 and is sent requests on its session. */
  async function legacyClient(capabilities: Record<string, unknown>): Promise<LegacyClient> {
    const client = new LegacyClient({ name: 'legacy-input', version: '1.0.0' }, { capabilities });
    await client.connect(new LegacyTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${ALICE}` } } }));
    clients.push(client);
    return client;
  }

  const rawCall = (params: Record<string, unknown>, token = ALICE, capabilities?: Record<string, unknown>) =>
    modernToolCall(h.url, params, { token, ...(capabilities ? { capabilities } : {}) });

  function auditRecords(tool: string): Array<Record<string, any>> {
    return readFileSync(join(h.dir, 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, any>)
      .filter((r) => r.target?.capability_name === tool || r.target?.tool_name === tool || JSON.stringify(r.target).includes(`"${tool}"`));
  }

  it('a 2026-07-28 client answers what 2025-11-25 backends ask in the middle of a call, over stdio and HTTP', async () => {
    const client = await modernClient({ elicitation: {}, sampling: {}, roots: {} });
    for (const b of ['ls', 'lh']) {
      expect(textOf(await client.callTool({ name: `${b}_elicit`, arguments: { question: 'Proceed?' } })), b).toBe(
        'elicited: accept {"answer":"yes to Proceed?","ok":true}',
      );
      expect(textOf(await client.callTool({ name: `${b}_sample`, arguments: { prompt: 'hi' } })), b).toBe('sampled: a sample');
      expect(JSON.parse(textOf(await client.callTool({ name: `${b}_roots`, arguments: {} }))), b).toEqual([{ uri: 'file:///work', name: 'work' }]);
    }
  });

  it('the round trip by hand: input_required with the backend request and a sealed state; the repeat completes the same call', async () => {
    const first = await rawCall({ name: 'ls_elicit', arguments: { question: 'Name?' } });
    expect(first.result).toMatchObject({ resultType: 'input_required' });
    const [[key, request]] = Object.entries(first.result!.inputRequests as Record<string, any>);
    expect(request).toMatchObject({ method: 'elicitation/create', params: { message: 'Name?' } });
    const state = first.result!.requestState as string;
    expect(state).toMatch(/^g1\./);
    // Nothing of the call can be read from the state.
    expect(Buffer.from(state.split('.')[2]!, 'base64url').toString('latin1')).not.toContain('Name?');
    const done = await rawCall({
      name: 'ls_elicit',
      arguments: { question: 'Name?' },
      inputResponses: { [key]: { action: 'accept', content: { answer: 'Ada' } } },
      requestState: state,
    });
    expect(textOf(done.result)).toBe('elicited: accept {"answer":"Ada"}');
    // Used: on the replica that ran it, the same state again is refused (its call is over); it is not run twice.
    const again = await rawCall({ name: 'ls_elicit', arguments: { question: 'Name?' }, inputResponses: { [key]: { action: 'decline' } }, requestState: state });
    expect(again.error).toMatchObject({ code: -32602, data: { reason: 'invalid_request_state' } });
  });

  it('a tampered state, one for other arguments, and one presented by another identity are refused', async () => {
    const first = await rawCall({ name: 'lh_elicit', arguments: { question: 'Tamper?' } });
    const state = first.result!.requestState as string;
    const [key] = Object.keys(first.result!.inputRequests as object);
    const answer = { [key!]: { action: 'accept', content: { answer: 'x' } } };
    const flipped = state.slice(0, -3) + (state.at(-3) === 'A' ? 'B' : 'A') + state.slice(-2);
    for (const [what, params, token] of [
      ['tampered', { name: 'lh_elicit', arguments: { question: 'Tamper?' }, inputResponses: answer, requestState: flipped }, ALICE],
      ['other arguments', { name: 'lh_elicit', arguments: { question: 'Other?' }, inputResponses: answer, requestState: state }, ALICE],
      ['another identity', { name: 'lh_elicit', arguments: { question: 'Tamper?' }, inputResponses: answer, requestState: state }, BOB],
      ['garbage', { name: 'lh_elicit', arguments: { question: 'Tamper?' }, inputResponses: answer, requestState: 'not-a-state' }, ALICE],
    ] as const) {
      const refused = await rawCall(params, token);
      expect(refused.error, what).toMatchObject({ code: -32602, message: 'Invalid or expired requestState', data: { reason: 'invalid_request_state' } });
    }
    // The rightful repeat still completes: the refusals left the waiting call alone.
    const done = await rawCall({ name: 'lh_elicit', arguments: { question: 'Tamper?' }, inputResponses: answer, requestState: state });
    expect(textOf(done.result)).toBe('elicited: accept {"answer":"x"}');
  });

  it('what the client did not declare is -32021 naming the capability, for each kind', async () => {
    for (const [tool, capability] of [
      ['ls_elicit', 'elicitation'],
      ['lh_sample', 'sampling'],
      ['ls_roots', 'roots'],
    ] as const) {
      const refused = await rawCall({ name: tool, arguments: tool.endsWith('roots') ? {} : { question: 'q', prompt: 'p' } }, ALICE, {});
      expect(refused.error, tool).toMatchObject({ code: -32021, data: { requiredCapabilities: { [capability]: {} } } });
      // The backend's call ended there, cancelled with the same reason, and no round was counted.
      const record = await waitFor(
        () => auditRecords(tool).find((r) => r.outcome?.status !== 'success' && JSON.stringify(r).includes(`client capability '${capability}'`)),
        `the refused ${tool} call in the audit`,
      );
      expect(record.metadata.input_rounds, tool).toBeUndefined();
      expect(record.outcome, tool).toMatchObject({ status: 'error', error_type: 'RequestCancelledError', error: expect.stringMatching(/^cancelled: /) });
    }
  });

  it('URL-mode elicitation passes through to a 2026-07-28 client that declared it, and is -32021 naming elicitation.url otherwise', async () => {
    const params = { name: 'ls_elicit_url', arguments: { url: 'https://auth.example/consent?x=1' } };
    const first = await rawCall(params, ALICE, { elicitation: { form: {}, url: {} } });
    const [[key, request]] = Object.entries(first.result!.inputRequests as Record<string, any>);
    expect(request).toMatchObject({
      method: 'elicitation/create',
      params: { mode: 'url', url: 'https://auth.example/consent?x=1', elicitationId: 'fixture-url-1' },
    });
    const done = await rawCall({ ...params, inputResponses: { [key]: { action: 'accept' } }, requestState: first.result!.requestState }, ALICE, {
      elicitation: { form: {}, url: {} },
    });
    expect(textOf(done.result)).toBe('url elicitation: accept');
    const formOnly = await rawCall(params, ALICE, { elicitation: {} });
    expect(formOnly.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: { url: {} } } } });
  });

  it('a 2026-07-28 backend: its input_required reaches a 2026-07-28 client under a sealed state and the v2 client completes it', async () => {
    const first = await rawCall({ name: 'mh_confirm', arguments: {} });
    expect(first.result).toMatchObject({ resultType: 'input_required', inputRequests: { ok: { method: 'elicitation/create' } } });
    expect(first.result!.requestState).not.toBe('asked');
    const client = await modernClient({ elicitation: {} });
    for (const b of ['mh', 'ms']) expect(textOf(await client.callTool({ name: `${b}_confirm`, arguments: {} })), b).toMatch(/^confirmed: \{"action":"accept"/);
  });

  it('a 2025-11-25 client is asked on its session what a 2026-07-28 backend needs, and the gateway completes the call', async () => {
    const client = await legacyClient({ elicitation: {} });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (r) => {
      asked.push(r.params.message);
      return { action: 'accept', content: { ok: true } };
    });
    for (const b of ['mh', 'ms']) {
      const r = await client.callTool({ name: `${b}_confirm`, arguments: {} }, undefined, { timeout: 15_000 });
      expect(textOf(r), b).toBe('confirmed: {"action":"accept","content":{"ok":true}}');
    }
    expect(asked).toEqual(['Sure?', 'Sure?']);

    // While the client has not answered, its session shows the call waiting for its input (GET /sessions).
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    let askedNow!: () => void;
    const beingAsked = new Promise<void>((resolve) => (askedNow = resolve));
    client.setRequestHandler(ElicitRequestSchema, async () => {
      askedNow();
      await answered;
      return { action: 'accept', content: { ok: true } };
    });
    const waitingOf = async () => {
      const res = await fetch(`${h.url}/manage/v1/sessions`);
      const body = (await res.json()) as { sessions: Array<{ client_name: string | null; waiting_input: number }> };
      return body.sessions.filter((x) => x.client_name === 'legacy-input').map((x) => x.waiting_input);
    };
    const call = client.callTool({ name: 'mh_confirm', arguments: {} }, undefined, { timeout: 15_000 });
    await beingAsked;
    expect(await waitingOf()).toContain(1);
    answer();
    expect(textOf(await call)).toBe('confirmed: {"action":"accept","content":{"ok":true}}');
    expect(await waitingOf()).not.toContain(1);
    const without = await legacyClient({});
    const refused = await without.callTool({ name: 'mh_confirm', arguments: {} }).catch((e: { code: number; data: unknown }) => e);
    expect(refused).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
  });

  it('a call whose client never answers is counted as waiting, then cancelled at its backend after the input timeout, with an event', async () => {
    const first = await rawCall({ name: 'ls_elicit', arguments: { question: 'Anyone?' } }, BOB);
    expect(first.result?.resultType).toBe('input_required');
    const waiting = async () => {
      const res = await fetch(`${h.url}/manage/v1/clients`);
      const body = (await res.json()) as { clients: Array<{ name: string; user_id: string | null; waiting_input: number }> };
      return body.clients.find((c) => c.name === 'raw' && c.user_id === 'bob')?.waiting_input;
    };
    expect(await waiting()).toBe(1);
    const event = await h.waitForEvent((e) => e.stage === 'input_timed_out', 15_000);
    expect(event).toMatchObject({ backend: 'ls', severity: 'warning', details: { waited_s: 2 } });
    expect(await waiting()).toBe(0);
    const record = await waitFor(
      () => auditRecords('ls_elicit').find((r) => JSON.stringify(r).includes('no input from the client')),
      'the timed-out call in the audit',
    );
    expect(record.metadata.input_rounds).toEqual({ rounds: 1, asked: ['elicitation/create'] });
  });

  it('each call is one audit record with its rounds and the kinds asked, never the answers', async () => {
    const client = await modernClient({ elicitation: {} });
    await client.callTool({ name: 'lh_elicit', arguments: { question: 'Audit me?' } });
    const records = await waitFor(() => {
      const found = auditRecords('lh_elicit').filter((r) => JSON.stringify(r).includes('elicitation/create') && r.outcome?.status === 'success');
      return found.length > 0 ? found : undefined;
    }, 'audit records of lh_elicit');
    const audited = records.at(-1)!;
    expect(audited.metadata.input_rounds).toEqual({ rounds: 1, asked: ['elicitation/create'] });
    expect(JSON.stringify(records)).not.toContain('yes to Audit me?');
  });
});
