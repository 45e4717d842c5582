/**
 * Calls that need the client's input, on any replica (issue 33, item 4):
 * two real `gateway server` replicas, each with its own 2025-11-25 stdio
 * backend that elicits in the middle of a call. A 2026-07-28 client starts
 * the call on one replica and repeats it on the other.
 *
 * - `sessions.store: redis`: the repeat is handed to the replica holding the
 *   call over Redis, which finishes it: the backend ran it once (one audit
 *   record, on the holder; none on the other).
 * - No shared store (`memory`, with a shared `state_key`): the other replica
 *   runs the call again and answers the backend from the state (at least
 *   once, `input_rounds.reissued` in its audit record); the holder's waiting
 *   call is cancelled at its input timeout.
 *
 * Then a v2 client through HAProxy (round robin, so each repeat reaches the
 * other replica) completes such calls in both set-ups.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startAuditedReplicas, type AuditedReplicas } from '../../../helpers/audited-replicas.js';
import { Haproxy } from '../../../helpers/haproxy.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';
import { waitFor } from '../../../helpers/wait.js';
import { auditRecords } from '../../../helpers/audit-records.js';
import { modernToolCall, type RawAnswer } from '../../../helpers/modern-call.js';

const MODERN = '2026-07-28';
const MGMT = 'input-rounds-replicas-management-0123456789';
const STATE_KEY = 'input-rounds-replicas-state-key-0123456789abcdef';
const textOf = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0]!.text;

interface Bed extends AuditedReplicas {
  proxy: Haproxy;
}

async function startBed(store: 'redis' | 'memory'): Promise<Bed> {
  const replicas = await startAuditedReplicas({
    store,
    server: { shutdown_drain_s: 0.5, input_rounds: { input_timeout_s: 3, ...(store === 'memory' ? { state_key: '${STATE_KEY}' } : {}) } },
    backends: { fx: stdioFixture(['--name', 'fx']) },
    managementToken: MGMT,
    env: { STATE_KEY },
  });
  const proxy = await Haproxy.start(replicas.replicas.map((r) => r.url));
  await proxy.allUp(2, 30_000, MGMT);
  return {
    ...replicas,
    proxy,
    async stop() {
      await proxy.stop();
      await replicas.stop();
    },
  };
}

const rawCall = (url: string, params: Record<string, unknown>) => modernToolCall(url, params);

/** The audit records of fx_elicit calls on one replica (the record has no arguments: each test starts with none). */
const records = (file: string, _question: string) => auditRecords(file, (r) => r.target?.capability_name === 'fx_elicit');

/** Starts the call on r1 and repeats it on r2 (asking for progress there); answers what r2 answered. */
async function acrossReplicas(bed: Bed, question: string) {
  const params = { name: 'fx_elicit', arguments: { question } };
  const first = await rawCall(bed.replicas[0]!.url, params);
  expect(first.result?.resultType).toBe('input_required');
  const [key] = Object.keys(first.result!.inputRequests as object);
  const repeat = {
    ...params,
    inputResponses: { [key!]: { action: 'accept', content: { answer: question } } },
    requestState: first.result!.requestState,
  };
  return modernToolCall(bed.replicas[1]!.url, repeat, { progressToken: `progress-${question}` });
}

/** The progress an answer's stream carried, as the client's token and step. */
const progressOf = (answer: RawAnswer) =>
  (answer.notifications ?? []).filter((n) => n.method === 'notifications/progress').map((n) => [n.params?.progressToken, n.params?.progress]);

async function throughBalancer(bed: Bed): Promise<string[]> {
  const client = new Client(
    { name: 'rounds-balanced', version: '2.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: MODERN } } },
  );
  client.setRequestHandler('elicitation/create', async (r) => ({ action: 'accept', content: { answer: `ok ${r.params.message}` } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${bed.proxy.url}/mcp`)));
  try {
    const answers: string[] = [];
    for (let i = 0; i < 3; i++) answers.push(textOf(await client.callTool({ name: 'fx_elicit', arguments: { question: `balanced ${i}` } })));
    return answers;
  } finally {
    await client.close();
  }
}

describe('calls waiting for input, on any replica', { timeout: 180_000 }, () => {
  const beds: Bed[] = [];
  afterAll(async () => {
    await Promise.all(beds.map((b) => b.stop()));
  });

  it('with Redis, the replica holding the call finishes it: the backend ran it once', async () => {
    const bed = await startBed('redis');
    beds.push(bed);
    const done = await acrossReplicas(bed, 'once?');
    expect(textOf(done.result)).toBe('elicited: accept {"answer":"once?"}');
    // The backend's progress after the answer, on r1 where the call runs, reached the stream open on r2.
    expect(progressOf(done)).toEqual([
      ['progress-once?', 1],
      ['progress-once?', 2],
    ]);
    const held = await waitFor(() => (records(bed.audit[0]!, 'once?').length > 0 ? records(bed.audit[0]!, 'once?') : undefined), 'the holder audit record');
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ outcome: { status: 'success' }, metadata: { input_rounds: { rounds: 1, asked: ['elicitation/create'] } } });
    expect(held[0]!.metadata.input_rounds.reissued).toBeUndefined();
    expect(records(bed.audit[1]!, 'once?')).toEqual([]);
    expect(await throughBalancer(bed)).toEqual(['balanced 0', 'balanced 1', 'balanced 2'].map((q) => `elicited: accept {"answer":"ok ${q}"}`));
  });

  it('with no shared store, the other replica runs the call again (at least once, said in its audit record)', async () => {
    const bed = await startBed('memory');
    beds.push(bed);
    const done = await acrossReplicas(bed, 'again?');
    expect(textOf(done.result)).toBe('elicited: accept {"answer":"again?"}');
    // The call run again on r2 reports its progress there.
    expect(progressOf(done)).toEqual([
      ['progress-again?', 1],
      ['progress-again?', 2],
    ]);
    const rerun = await waitFor(() => records(bed.audit[1]!, 'again?')[0], 'the re-run audit record');
    expect(rerun).toMatchObject({ outcome: { status: 'success' }, metadata: { input_rounds: { rounds: 1, reissued: true } } });
    // The first run, left waiting on r1, ends at the input timeout.
    const abandoned = await waitFor(() => records(bed.audit[0]!, 'again?')[0], 'the abandoned call on r1', 20_000);
    expect(abandoned.outcome.status).not.toBe('success');
    expect(await throughBalancer(bed)).toEqual(['balanced 0', 'balanced 1', 'balanced 2'].map((q) => `elicited: accept {"answer":"ok ${q}"}`));
  });
});
