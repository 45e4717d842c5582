/**
 * Drives the fixture backend (test/fixtures/) directly with the SDK client over
 * every transport it offers, so gateway tests can rely on it. Runs the compiled
 * fixture from dist/ (built by `pretest`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  type Notification,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { fixtureCommand, startHttpFixture, type HttpFixture } from './fixtures/spawn.js';
import { OrderedDeliveryTransport } from '../runtime/transports/ordered-delivery.js';

/** Declares a test only for the modes where the feature exists (e.g. no progress in JSON-response mode). */
const itWhen = (applies: boolean) => (applies ? it : () => undefined);

type TransportKind = 'stdio' | 'sse' | 'streamable-http';

interface Mode {
  label: string;
  transport: TransportKind;
  args: string[];
  /** Server-to-client requests (sampling, elicitation, roots) are possible. */
  serverRequests: boolean;
  /** Notifications tied to a request (progress) reach the client. */
  requestNotifications: boolean;
  /** One server instance serves the whole connection (subscriptions, setLevel, list_changed, cancel). */
  stateful: boolean;
}

const MODES: Mode[] = [
  { label: 'stdio', transport: 'stdio', args: [], serverRequests: true, requestNotifications: true, stateful: true },
  { label: 'sse', transport: 'sse', args: [], serverRequests: true, requestNotifications: true, stateful: true },
  { label: 'streamable-http', transport: 'streamable-http', args: [], serverRequests: true, requestNotifications: true, stateful: true },
  // A JSON answer cannot carry progress; server requests travel on the GET stream.
  {
    label: 'streamable-http --json-response',
    transport: 'streamable-http',
    args: ['--json-response'],
    serverRequests: true,
    requestNotifications: false,
    stateful: true,
  },
  // A fresh server per POST: no way back to the client outside the POST's own stream.
  {
    label: 'streamable-http --stateless',
    transport: 'streamable-http',
    args: ['--stateless'],
    serverRequests: false,
    requestNotifications: true,
    stateful: false,
  },
];

const EXPECTED_TOOLS = ['echo', 'add', 'fail', 'throw', 'whoami', 'slow', 'burst', 'last_cancelled', 'sample', 'elicit', 'roots', 'add_tool', 'log', 'touch'];

async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('waitFor: timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function textOf(result: unknown): string {
  const content = (result as { content: Array<{ type: string; text?: string }> }).content;
  return content.map((c) => c.text ?? '').join('');
}

/** An SDK client with sampling/elicitation/roots handlers that records notifications. */
function createTestClient(): { client: Client; notifications: Notification[] } {
  const client = new Client({ name: 'fixtures-test', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const first = request.params.messages[0]?.content;
    const prompt = first && !Array.isArray(first) && first.type === 'text' ? first.text : '?';
    return { role: 'assistant', model: 'test-model', content: { type: 'text', text: `answer to ${prompt}` } };
  });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { answer: 'yes' } }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///tmp/root', name: 'root' }] }));
  const notifications: Notification[] = [];
  client.fallbackNotificationHandler = async (notification) => {
    notifications.push(notification);
  };
  return { client, notifications };
}

/**
 * The SDK's transports, wrapped as the gateway wraps them: without it the SDK
 * client itself can drop a progress notification that arrives in the same
 * chunk as the result (see runtime/transports/ordered-delivery.ts), and these
 * tests are about the fixture, not that race.
 */
function clientTransport(kind: TransportKind, target: { url?: string; args?: string[] }): Transport {
  return new OrderedDeliveryTransport(sdkTransport(kind, target));
}

function sdkTransport(kind: TransportKind, target: { url?: string; args?: string[] }): Transport {
  switch (kind) {
    case 'stdio':
      return new StdioClientTransport({ ...fixtureCommand(target.args ?? []), stderr: 'pipe' });
    case 'sse':
      return new SSEClientTransport(new URL(target.url!));
    case 'streamable-http':
      return new StreamableHTTPClientTransport(new URL(target.url!));
  }
}

describe.each(MODES)('fixture over $label', (mode) => {
  const NAME = 'fx';
  let backend: HttpFixture | undefined;
  let client: Client;
  let notifications: Notification[];

  beforeAll(async () => {
    const args = ['--name', NAME, '--tools', 'shared,extra', ...mode.args];
    if (mode.transport !== 'stdio') backend = await startHttpFixture({ transport: mode.transport, args });
    ({ client, notifications } = createTestClient());
    await client.connect(clientTransport(mode.transport, { url: backend?.url, args }));
  });

  afterAll(async () => {
    await client?.close();
    await backend?.stop();
  });

  it('declares the capabilities and lists the tools', async () => {
    expect(client.getServerVersion()?.name).toBe(NAME);
    expect(client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
    });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining([...EXPECTED_TOOLS, 'shared', 'extra']));
    expect(await client.callTool({ name: 'shared' })).toMatchObject({ content: [{ type: 'text', text: `${NAME}:shared` }] });
  });

  it('answers echo (structured), add, fail, throw and whoami', async () => {
    const echo = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(echo).toMatchObject({ content: [{ type: 'text', text: 'hi' }], structuredContent: { text: 'hi' } });
    const tools = (await client.listTools()).tools;
    expect(tools.find((t) => t.name === 'echo')?.outputSchema).toBeDefined();

    expect(textOf(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
    expect(await client.callTool({ name: 'fail', arguments: { message: 'nope' } })).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'nope' }],
    });

    const thrown = await client.callTool({ name: 'throw', arguments: { message: 'boom' } }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(McpError);
    expect((thrown as McpError).code).toBe(ErrorCode.InternalError);
    expect((thrown as McpError).message).toContain('boom');

    const who = JSON.parse(textOf(await client.callTool({ name: 'whoami' }))) as { name: string; pid: number };
    expect(who.name).toBe(NAME);
    if (backend) expect(who.pid).toBe(backend.pid);
  });

  it('serves resources, the prompt and completions', async () => {
    const info = await client.readResource({ uri: `fixture://${NAME}/info` });
    expect(info.contents[0]).toMatchObject({ mimeType: 'text/plain', text: `info from ${NAME}` });
    const item = await client.readResource({ uri: `fixture://${NAME}/items/10` });
    expect(item.contents[0]).toMatchObject({ text: `item 10 from ${NAME}` });
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toContain(`fixture://${NAME}/items/{id}`);
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain(`fixture://${NAME}/info`);

    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'carol' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: `Hello carol from ${NAME}` } }]);

    const names = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'a' } });
    expect(names.completion.values).toEqual(['alice']);
    const ids = await client.complete({
      ref: { type: 'ref/resource', uri: `fixture://${NAME}/items/{id}` },
      argument: { name: 'id', value: '1' },
    });
    expect(ids.completion.values).toEqual(['1', '10']);
  });

  it('delivers logging notifications', async () => {
    await client.callTool({ name: 'log', arguments: { level: 'warning', message: 'careful' } });
    const log = await waitFor(() => notifications.find((n) => n.method === 'notifications/message'));
    expect(log.params).toMatchObject({ level: 'warning', data: 'careful', logger: NAME });
  });

  itWhen(mode.stateful)('honours logging/setLevel', async () => {
    await client.setLoggingLevel('error');
    expect(textOf(await client.callTool({ name: 'log', arguments: { level: 'info', message: 'quiet' } }))).toBe('filtered info');
    await client.setLoggingLevel('debug');
  });

  itWhen(mode.requestNotifications)('reports progress of slow', async () => {
    const progress: Progress[] = [];
    const result = await client.callTool({ name: 'slow', arguments: { steps: 3, delay_ms: 10 } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(textOf(result)).toBe('done 3');
    expect(progress).toEqual([1, 2, 3].map((i) => ({ progress: i, total: 3, message: `step ${i}` })));
  });

  itWhen(mode.stateful)('sees the cancellation of slow', async () => {
    const countOf = async (): Promise<number> => (JSON.parse(textOf(await client.callTool({ name: 'last_cancelled' }))) as { count: number }).count;
    const before = await countOf();
    const controller = new AbortController();
    const call = client.callTool({ name: 'slow', arguments: { steps: 100, delay_ms: 20 } }, undefined, { signal: controller.signal });
    setTimeout(() => controller.abort('test cancels'), 100);
    await expect(call).rejects.toThrow();
    await waitFor(async () => ((await countOf()) > before ? true : undefined));
  });

  itWhen(mode.serverRequests)('round-trips sampling, elicitation and roots', async () => {
    expect(textOf(await client.callTool({ name: 'sample', arguments: { prompt: 'ping?' } }))).toBe('sampled: answer to ping?');
    expect(textOf(await client.callTool({ name: 'elicit', arguments: { question: 'ok?' } }))).toBe('elicited: accept {"answer":"yes"}');
    expect(JSON.parse(textOf(await client.callTool({ name: 'roots' })))).toEqual([{ uri: 'file:///tmp/root', name: 'root' }]);
  });

  itWhen(mode.stateful)('notifies subscribed resource updates', async () => {
    const uri = `fixture://${NAME}/info`;
    expect(textOf(await client.callTool({ name: 'touch', arguments: { uri } }))).toBe(`not subscribed ${uri}`);
    await client.subscribeResource({ uri });
    expect(textOf(await client.callTool({ name: 'touch', arguments: { uri } }))).toBe(`updated ${uri}`);
    const update = await waitFor(() => notifications.find((n) => n.method === 'notifications/resources/updated'));
    expect(update.params).toEqual({ uri });
  });

  it('adds a tool at runtime', async () => {
    expect(textOf(await client.callTool({ name: 'add_tool', arguments: { name: 'late' } }))).toBe('added late');
    if (mode.stateful) await waitFor(() => notifications.find((n) => n.method === 'notifications/tools/list_changed'));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('late');
    expect(textOf(await client.callTool({ name: 'late' }))).toBe(`${NAME}:late`);
  });
});

describe('fixture process flags', () => {
  it('--tool-count registers t0..tN-1', async () => {
    const { client } = createTestClient();
    await client.connect(clientTransport('stdio', { args: ['--tool-count', '50'] }));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('t0');
      expect(names).toContain('t49');
      expect(names).not.toContain('t50');
      expect(textOf(await client.callTool({ name: 't7', arguments: { text: 'x' } }))).toBe('x');
    } finally {
      await client.close();
    }
  });

  it('--ping-delay-ms slows ping down', async () => {
    const backend = await startHttpFixture({ transport: 'streamable-http', args: ['--ping-delay-ms', '300'] });
    const { client } = createTestClient();
    try {
      await client.connect(clientTransport('streamable-http', { url: backend.url }));
      const started = Date.now();
      await client.ping();
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    } finally {
      await client.close();
      await backend.stop();
    }
  });

  it('--exit-after-ms makes an HTTP backend exit by itself', async () => {
    const backend = await startHttpFixture({ transport: 'sse', args: ['--exit-after-ms', '300'] });
    expect(await backend.exited).toEqual({ code: 1, signal: null });
    await backend.stop(); // no-op once exited
  });

  it('--exit-after-ms makes a stdio backend exit by itself', async () => {
    const { client } = createTestClient();
    const closed = new Promise<void>((resolve) => {
      client.onclose = resolve;
    });
    await client.connect(clientTransport('stdio', { args: ['--exit-after-ms', '300'] }));
    await closed;
  });

  it('stop() ends a running backend', async () => {
    const backend = await startHttpFixture({ transport: 'streamable-http', name: 'stopper' });
    await backend.stop();
    expect(backend.child.exitCode ?? backend.child.signalCode).not.toBeNull();
  });

  it('rejects unknown flags', async () => {
    await expect(startHttpFixture({ transport: 'sse', args: ['--bogus'] })).rejects.toThrow(/exited before listening/);
  });
});
