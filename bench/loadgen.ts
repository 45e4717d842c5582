/**
 * Load generator worker (forked by bench/run.ts, driven over IPC). Each
 * client is an SDK `Client` with its own session (streamable HTTP, or legacy
 * SSE for mcp-hub), calling one method in a closed loop: the next call starts
 * when the previous one answered. `v2` asks for a client of the SDK's v2 line
 * instead (./v2-load-client.ts): pinned to 2026-07-28 it has no session.
 *
 * Results are checked only for shape (a passthrough result schema): full zod
 * validation of every result would make the load generator, which shares the
 * machine's two cores with the system under test, the bottleneck.
 */
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/client';
import { z } from 'zod/v3';
import { connectV2, type V2Negotiation } from './v2-load-client.js';
import { ownSignalFetch } from './own-signal-fetch.js';

/**
 * `stdio`: each client spawns its own backend process (`url` is then unused).
 * `raw-http`: not the SDK but bare JSON-RPC POSTs over node:http (keep-alive),
 * JSON or SSE answers: a load generator that costs little CPU, to show
 * the server's own cost without the SDK client competing for the cores.
 */
export type ClientTransport = 'streamable-http' | 'sse' | 'stdio' | 'raw-http';

/**
 * `call`: tools/call with a passthrough result check (cheap for the load generator);
 * `calltool`: `Client.callTool()` after `Client.listTools()`, the way applications call
 * tools (the SDK zod-validates the result and checks structuredContent against the
 * tool's output schema); `list`: tools/list.
 */
export type LoadMethod = 'call' | 'calltool' | 'list';

export type LoadCommand =
  | {
      cmd: 'connect';
      url: string;
      transport: ClientTransport;
      clients: number;
      tool?: string;
      toolPattern?: string;
      concurrency?: number;
      /** Each client calls `listTools()` once after connecting (SDK clients only). */
      listTools?: boolean;
      /** Sent with every HTTP request (an `Authorization` header, say). */
      headers?: Record<string, string>;
      command?: { command: string; args: string[] };
      /** A client of the SDK's v2 line, negotiating so (streamable HTTP or stdio; `calltool` only); default the 1.x client. */
      v2?: V2Negotiation;
    }
  | {
      cmd: 'run';
      seconds: number;
      record: boolean;
      method: LoadMethod;
      /** Calls per second offered by this process's clients together (evenly spaced); absent: each client calls again at once. */
      rate?: number;
    }
  | { cmd: 'close' }
  | { cmd: 'exit' };

export interface RunResult {
  calls: number;
  errors: number;
  firstError?: string;
  /** Milliseconds, one per completed call (only when recording). */
  latencies: number[];
  /** This worker's CPU time during the run, microseconds. */
  cpuMicros: number;
  wallMs: number;
}

/**
 * A result schema that only checks the result is an object. A real zod (v3 API)
 * type, so the SDK takes it as any other schema; `safeParse` answers directly,
 * without zod's parse context, to keep each call's check as cheap as a test.
 */
class ObjectResult extends z.ZodType<object> {
  constructor() {
    super({});
  }

  _parse(input: z.ParseInput): z.ParseReturnType<object> {
    return isObject(input.data) ? z.OK(input.data) : z.INVALID;
  }

  override safeParse(data: unknown): z.SafeParseReturnType<unknown, object> {
    if (isObject(data)) return { success: true, data };
    return { success: false, error: new z.ZodError([{ code: 'custom', message: 'result is not an object', path: [] }]) };
  }
}

const isObject = (data: unknown): data is object => typeof data === 'object' && data !== null;
const PASSTHROUGH = new ObjectResult();

// The SDK client transport passes one long-lived AbortSignal to every fetch; undici
// drops its listeners only on GC, so a closed loop trips the leak warning.
setMaxListeners(0);

interface LoadClient {
  /** What the SDK clients of both lines have in common (the 1.x one takes a result schema second; unused here). */
  callTool?(params: { name: string; arguments: Record<string, unknown> }, resultSchema: undefined, opts: { timeout: number }): Promise<unknown>;
  listTools?(): Promise<unknown>;
  request(request: { method: string; params?: Record<string, unknown> }, schema: ObjectResult, opts?: { timeout?: number }): Promise<unknown>;
  close(): Promise<void>;
}

const rawAgent = new http.Agent({ keepAlive: true });

/** A streamable HTTP session driven with bare node:http requests (see `raw-http`). */
class RawClient implements LoadClient {
  private sessionId?: string;
  private nextId = 0;
  private readonly target: http.RequestOptions;

  constructor(
    url: string,
    private readonly extraHeaders: Record<string, string> = {},
  ) {
    const u = new URL(url);
    this.target = { hostname: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent: rawAgent };
  }

  async connect(): Promise<void> {
    await this.post({
      jsonrpc: '2.0',
      id: this.nextId++,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench-raw', version: '1.0.0' } },
    });
    await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  async request(request: { method: string; params?: Record<string, unknown> }): Promise<unknown> {
    const reply = (await this.post({ jsonrpc: '2.0', id: this.nextId++, ...request })) as { result?: unknown; error?: { message: string } };
    if (reply.error) throw new Error(reply.error.message);
    return reply.result;
  }

  async close(): Promise<void> {
    if (!this.sessionId) return;
    await new Promise<void>((resolve) => {
      const req = http.request({ ...this.target, method: 'DELETE', headers: { ...this.extraHeaders, 'mcp-session-id': this.sessionId } }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', () => resolve());
      req.end();
    });
  }

  private post(body: unknown): Promise<unknown> {
    const payload = JSON.stringify(body);
    const headers: Record<string, string | number> = {
      ...this.extraHeaders,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'content-length': Buffer.byteLength(payload),
    };
    if (this.sessionId) {
      headers['mcp-session-id'] = this.sessionId;
      headers['mcp-protocol-version'] = '2025-06-18';
    }
    return new Promise((resolve, reject) => {
      const req = http.request({ ...this.target, headers }, (res) => {
        const sid = res.headers['mcp-session-id'];
        if (typeof sid === 'string') this.sessionId = sid;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          if (res.statusCode === 202) return resolve(undefined);
          if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}: ${text}`));
          if (String(res.headers['content-type']).startsWith('text/event-stream')) {
            // An SSE answer (the SDK's server transport always streams): the event carrying the response.
            const events = text
              .split('\n')
              .filter((l) => l.startsWith('data:'))
              .map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>);
            return resolve(events.find((e) => 'result' in e || 'error' in e));
          }
          resolve(JSON.parse(text));
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }
}

let clients: LoadClient[] = [];
let tool = '';

async function connectOne(cmd: Extract<LoadCommand, { cmd: 'connect' }>): Promise<LoadClient> {
  if (cmd.transport === 'raw-http') {
    const raw = new RawClient(cmd.url, cmd.headers);
    await raw.connect();
    return raw;
  }
  if (cmd.v2) {
    if (cmd.transport !== 'streamable-http' && cmd.transport !== 'stdio') throw new Error(`no v2 client over ${cmd.transport}`);
    return connectV2({ transport: cmd.transport, url: cmd.url, negotiation: cmd.v2, headers: cmd.headers, command: cmd.command });
  }
  const client = new Client({ name: 'bench-loadgen', version: '1.0.0' }, { capabilities: {} });
  let t: Transport;
  if (cmd.transport === 'stdio') t = new StdioClientTransport({ ...cmd.command!, stderr: 'ignore' });
  else if (cmd.transport === 'sse') t = new SSEClientTransport(new URL(cmd.url), { requestInit: { headers: cmd.headers }, fetch: ownSignalFetch });
  else t = new StreamableHTTPClientTransport(new URL(cmd.url), { requestInit: { headers: cmd.headers }, fetch: ownSignalFetch });
  await client.connect(t);
  return client;
}

async function connect(cmd: Extract<LoadCommand, { cmd: 'connect' }>): Promise<{ tool: string; tools: number }> {
  const batch = cmd.concurrency ?? 32;
  for (let i = 0; i < cmd.clients; i += batch) {
    const n = Math.min(batch, cmd.clients - i);
    clients.push(...(await Promise.all(Array.from({ length: n }, () => connectOne(cmd)))));
  }
  let toolCount = 0;
  if (cmd.listTools) {
    // Applications list the tools first; the SDK client then validates structured results against the output schemas.
    if (clients.some((c) => !c.listTools)) throw new Error('listTools needs SDK clients');
    await Promise.all(clients.map((c) => c.listTools!()));
  }
  if (cmd.tool) tool = cmd.tool;
  if (cmd.toolPattern && clients[0]) {
    const { tools } = (await clients[0].request({ method: 'tools/list' }, PASSTHROUGH)) as { tools: Array<{ name: string }> };
    toolCount = tools.length;
    const re = new RegExp(cmd.toolPattern);
    const found = tools.find((t) => re.test(t.name));
    if (!found) throw new Error(`no tool matching ${cmd.toolPattern} among ${tools.map((t) => t.name).join(', ')}`);
    tool = found.name;
  }
  return { tool, tools: toolCount };
}

async function run(cmd: Extract<LoadCommand, { cmd: 'run' }>): Promise<RunResult> {
  const latencies: number[] = [];
  let calls = 0;
  let errors = 0;
  let firstError: string | undefined;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const deadline = t0 + cmd.seconds * 1000;
  const request =
    cmd.method === 'list'
      ? { method: 'tools/list' as const }
      : { method: 'tools/call' as const, params: { name: tool, arguments: { text: 'hello from the bench' } } };
  if (cmd.method === 'calltool' && clients.some((c) => !c.callTool)) throw new Error('calltool needs SDK clients');
  const args = { text: 'hello from the bench' };
  const once =
    cmd.method === 'calltool'
      ? (client: LoadClient) => client.callTool!({ name: tool, arguments: args }, undefined, { timeout: 30_000 })
      : (client: LoadClient) => client.request(request, PASSTHROUGH, { timeout: 30_000 });
  // Paced: client i calls at t0 + (i + k·n)/rate, so every caller is offered the same load whatever its own speed.
  const spacing = cmd.rate ? 1000 / cmd.rate : 0;
  await Promise.all(
    clients.map(async (client, i) => {
      for (let k = 0; performance.now() < deadline; k++) {
        if (spacing) {
          const due = t0 + (i + k * clients.length) * spacing;
          const wait = due - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          if (performance.now() >= deadline) break;
        }
        const started = performance.now();
        try {
          const result = await once(client);
          if (cmd.method === 'calltool' && (result as { isError?: boolean }).isError) throw new Error(JSON.stringify(result));
          calls++;
          if (cmd.record) latencies.push(performance.now() - started);
        } catch (err) {
          errors++;
          firstError ??= (err as Error).message;
        }
      }
    }),
  );
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { calls, errors, firstError, latencies, cpuMicros: cpu.user + cpu.system, wallMs };
}

async function close(): Promise<void> {
  const all = clients;
  clients = [];
  await Promise.all(all.map((c) => c.close().catch(() => undefined)));
}

process.on('message', (msg: LoadCommand & { id: number }) => {
  const reply = (body: unknown) => process.send!({ id: msg.id, ...(body as object) });
  const fail = (err: unknown) => reply({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  switch (msg.cmd) {
    case 'connect':
      connect(msg).then(reply, fail);
      break;
    case 'run':
      run(msg).then((r) => reply({ result: r }), fail);
      break;
    case 'close':
      close().then(() => reply({}), fail);
      break;
    case 'exit':
      void close().finally(() => process.exit(0));
      break;
  }
});
process.on('disconnect', () => process.exit(0));
