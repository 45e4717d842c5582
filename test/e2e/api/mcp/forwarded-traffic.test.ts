/**
 * Traffic beyond request/response, through one gateway in front of the fixture
 * over all three backend transports (s: stdio, e: SSE, h: streamable HTTP, j: streamable HTTP
 * answering with plain JSON),
 * with clients on /mcp and /sse: progress, cancellation in both directions,
 * sampling / elicitation / roots round trips to the client session whose call
 * caused them, resource subscriptions, and list_changed.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, McpError, type Progress } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { fixtureCommand, repoRoot, startHttpFixture, type HttpFixture } from '../../../fixtures/spawn.js';
import { collectNotifications } from '../../../helpers/notifications.js';
import { startPagedBackend, type PagedBackend } from '../../../fixtures/paged-backend.js';
import { waitFor } from '../../../helpers/wait.js';
import { join } from 'node:path';

const BACKENDS = ['s', 'e', 'h', 'j'] as const;
/** `j` answers POSTs with plain JSON, which cannot carry progress tied to the call: not a gateway matter. */
const STREAMING_BACKENDS = ['s', 'e', 'h'] as const;
const CAPS = { sampling: {}, elicitation: {}, roots: { listChanged: true } };
const text = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0].text;

/** A client that answers sampling with `<who>: <prompt>`, elicitation with accept {answer: who}, roots with one root. */
function answerAs(c: Client, who: string, seen: string[] = []): string[] {
  c.setRequestHandler(CreateMessageRequestSchema, (req) => {
    const content = req.params.messages[0].content as { type: string; text?: string };
    seen.push(`sampling:${content.text}`);
    return { role: 'assistant', model: 'test-model', content: { type: 'text', text: `${who}: ${content.text}` } };
  });
  c.setRequestHandler(ElicitRequestSchema, (req) => {
    seen.push(`elicit:${req.params.message}`);
    return { action: 'accept', content: { answer: who } };
  });
  c.setRequestHandler(ListRootsRequestSchema, () => {
    seen.push('roots');
    return { roots: [{ uri: `file:///roots/${who}`, name: who }] };
  });
  return seen;
}

describe('core: progress, cancellation and client round trips', () => {
  let h: Harness;
  let sse: HttpFixture;
  let http: HttpFixture;
  let json: HttpFixture;
  let asker: PagedBackend;
  let a: Client; // on /mcp
  let b: Client; // on /sse

  beforeAll(async () => {
    [sse, http, json] = await Promise.all([
      startHttpFixture({ transport: 'sse', name: 'e' }),
      startHttpFixture({ transport: 'streamable-http', name: 'h' }),
      startHttpFixture({ transport: 'streamable-http', name: 'j', args: ['--json-response'] }),
    ]);
    asker = await startPagedBackend({ tools: 0, resources: 0, templates: 0, prompts: 0, pageSize: 10, askTool: true });
    const f = fixtureCommand(['--name', 's']);
    h = await startGateway({
      backends: {
        s: { type: 'stdio', command: f.command, args: f.args },
        // Used by one test only, so that its first request to the gateway is the one cancelled.
        c: { type: 'stdio', command: f.command, args: fixtureCommand(['--name', 'c']).args },
        e: { type: 'sse', url: sse.url },
        h: { type: 'streamable-http', url: http.url },
        // Plain JSON responses: the backend's own requests and notifications travel on its GET stream.
        j: { type: 'streamable-http', url: json.url },
        p: { type: 'streamable-http', url: asker.url },
        everything: {
          type: 'stdio',
          command: process.execPath,
          args: [join(repoRoot(), 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
        },
      },
    });
    a = await h.connect({ capabilities: CAPS });
    b = await h.connect({ transport: 'sse', capabilities: CAPS });
    answerAs(a, 'A');
    answerAs(b, 'B');
  });

  afterAll(async () => {
    await h?.close();
    await Promise.all([sse?.stop(), http?.stop(), json?.stop(), asker?.close()]);
  });

  it('relays progress notifications from every backend transport, to both client transports', async () => {
    for (const client of [a, b]) {
      for (const backend of STREAMING_BACKENDS) {
        const progress: Progress[] = [];
        // Steps well apart: the SDK client drops a progress notification it reads in the same chunk as the response.
        const r = await client.callTool({ name: `${backend}_slow`, arguments: { steps: 2, delay_ms: 250 } }, undefined, {
          onprogress: (p) => progress.push(p),
        });
        expect(text(r)).toBe('done 2');
        expect(progress.map((p) => [p.progress, p.total, p.message])).toEqual([
          [1, 2, 'step 1'],
          [2, 2, 'step 2'],
        ]);
      }
    }
  });

  it('a client cancellation reaches the backend (every backend transport)', async () => {
    for (const backend of STREAMING_BACKENDS) {
      const count = async () => JSON.parse(text(await a.callTool({ name: `${backend}_last_cancelled`, arguments: {} }))).count as number;
      const before = await count();
      const ctrl = new AbortController();
      const call = a.callTool({ name: `${backend}_slow`, arguments: { steps: 500, delay_ms: 100 } }, undefined, {
        signal: ctrl.signal,
        onprogress: () => ctrl.abort('test cancels'),
        timeout: 120_000,
      });
      await expect(call).rejects.toThrow();
      await waitFor(async () => (await count()) === before + 1, `${backend} to record the cancellation`);
    }
  });

  it('sampling, elicitation and roots raised during a call reach the calling session and the answer goes back', async () => {
    for (const [client, who] of [
      [a, 'A'],
      [b, 'B'],
    ] as const) {
      for (const backend of BACKENDS) {
        expect(text(await client.callTool({ name: `${backend}_sample`, arguments: { prompt: `hi ${backend}` } }))).toBe(`sampled: ${who}: hi ${backend}`);
        expect(text(await client.callTool({ name: `${backend}_elicit`, arguments: { question: `q ${backend}?` } }))).toBe(
          `elicited: accept {"answer":"${who}"}`,
        );
        expect(JSON.parse(text(await client.callTool({ name: `${backend}_roots`, arguments: {} })))).toEqual([{ uri: `file:///roots/${who}`, name: who }]);
      }
    }
  });

  it('concurrent calls from two sessions each get their own sampling request', async () => {
    const [ra, rb, rc] = await Promise.all([
      a.callTool({ name: 's_sample', arguments: { prompt: 'from a' } }),
      b.callTool({ name: 'h_sample', arguments: { prompt: 'from b' } }),
      b.callTool({ name: 'e_sample', arguments: { prompt: 'from b again' } }),
    ]);
    expect(text(ra)).toBe('sampled: A: from a');
    expect(text(rb)).toBe('sampled: B: from b');
    expect(text(rc)).toBe('sampled: B: from b again');
  });

  it('progress the client reports on a backend request goes back to the backend', async () => {
    const c = await h.connect({ capabilities: CAPS });
    c.setRequestHandler(CreateMessageRequestSchema, async (req, extra) => {
      const progressToken = req.params._meta?.progressToken;
      expect(progressToken).toBeDefined();
      for (const progress of [1, 2]) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: progressToken!, progress, total: 2, message: `thinking ${progress}` },
        });
      }
      return { role: 'assistant', model: 'm', content: { type: 'text', text: 'done thinking' } };
    });
    const r = JSON.parse(text(await c.callTool({ name: 'p_ask', arguments: {} })));
    expect(r.answer).toEqual({ type: 'text', text: 'done thinking' });
    expect(r.progress).toEqual([
      { progress: 1, total: 2, message: 'thinking 1' },
      { progress: 2, total: 2, message: 'thinking 2' },
    ]);
  });

  it('a sampling round trip through server-everything (a real npm backend)', async () => {
    const r = await a.callTool({ name: 'everything_trigger-sampling-request', arguments: { prompt: 'tell me', maxTokens: 10 } });
    expect(text(r)).toContain('A: Resource trigger-sampling-request context: tell me');
  });

  it('a backend cancelling its own request (its call was cancelled) cancels it at the client', async () => {
    // A client whose sampling handler answers once, then never again; it only notices cancellation.
    const c = await h.connect({ capabilities: CAPS });
    let handlerStarted!: () => void;
    const started = new Promise<void>((r) => (handlerStarted = r));
    let answered = false;
    const handlerAborted = new Promise<string>((resolve) => {
      c.setRequestHandler(CreateMessageRequestSchema, (_req, extra) => {
        if (!answered) {
          answered = true;
          return { role: 'assistant', model: 'm', content: { type: 'text', text: 'warm' } };
        }
        handlerStarted();
        return new Promise((_res, reject) => {
          extra.signal.addEventListener('abort', () => {
            resolve(String(extra.signal.reason ?? 'aborted'));
            reject(new Error('cancelled'));
          });
        });
      });
    });
    // Warm-up: the SDK client ignores a cancellation of request id 0, the gateway's first request to it.
    expect(text(await c.callTool({ name: 's_sample', arguments: { prompt: 'warm up' } }))).toBe('sampled: warm');
    // Backend `c` has sent nothing yet: the sampling request it now sends has id 0 on its side.
    const ctrl = new AbortController();
    const call = c.callTool({ name: 'c_sample', arguments: { prompt: 'never answered' } }, undefined, { signal: ctrl.signal, timeout: 120_000 });
    await started;
    ctrl.abort('client gives up');
    await expect(call).rejects.toThrow();
    // client → gateway → backend (tools/call cancelled) → backend cancels its sampling request → gateway → client.
    await handlerAborted;
  });

  it('resource subscriptions: the backend is subscribed, updates reach the subscriber, unsubscribe is forwarded', async () => {
    const notes = collectNotifications(b);
    for (const backend of BACKENDS) {
      const uri = `fixture://${backend}/info`;
      expect(text(await b.callTool({ name: `${backend}_touch`, arguments: { uri } }))).toBe(`not subscribed ${uri}`);
      await b.subscribeResource({ uri });
      expect(text(await b.callTool({ name: `${backend}_touch`, arguments: { uri } }))).toBe(`updated ${uri}`);
      const n = await notes.waitFor('notifications/resources/updated', (x) => (x.params as { uri?: string }).uri === uri);
      expect(n.params).toMatchObject({ uri });
      await b.unsubscribeResource({ uri });
      expect(text(await b.callTool({ name: `${backend}_touch`, arguments: { uri } }))).toBe(`not subscribed ${uri}`);
    }
    const err = await b.subscribeResource({ uri: 'fixture://nobody/info' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).message).toContain('fixture://nobody/info');
  });

  it('a subscription survives its backend reconnecting (the new session is subscribed again)', async () => {
    const notes = collectNotifications(b);
    const uri = 'fixture://s/info';
    await b.subscribeResource({ uri });
    const oldPid = h.gateway.controller.connection('s')!.pid!;
    process.kill(oldPid, 'SIGKILL');
    await waitFor(
      () => {
        const pid = h.gateway.controller.connection('s')?.pid;
        return h.gateway.controller.backendRecord('s')?.phase === 'Ready' && pid !== undefined && pid !== oldPid;
      },
      'backend s to reconnect',
      20_000,
    );
    await waitFor(async () => text(await b.callTool({ name: 's_touch', arguments: { uri } })) === `updated ${uri}`, 'the new backend session to be subscribed');
    await notes.waitFor('notifications/resources/updated', (n) => (n.params as { uri?: string }).uri === uri);
    await b.unsubscribeResource({ uri });
  });

  it('a backend announcing tools/list_changed is refreshed and every client is told', async () => {
    const na = collectNotifications(a);
    const nb = collectNotifications(b);
    for (const backend of BACKENDS) {
      const tool = `added_${backend}`;
      expect(text(await a.callTool({ name: `${backend}_add_tool`, arguments: { name: tool } }))).toBe(`added ${tool}`);
      await waitFor(async () => (await b.listTools()).tools.some((t) => t.name === `${backend}_${tool}`), `${backend}_${tool} to be listed`);
      expect(text(await b.callTool({ name: `${backend}_${tool}`, arguments: {} }))).toBe(`${backend}:${tool}`);
    }
    await na.waitFor('notifications/tools/list_changed');
    await nb.waitFor('notifications/tools/list_changed');
  });
});
