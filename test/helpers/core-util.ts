/**
 * Small helpers shared by the core end-to-end tests (test/core-*.test.ts):
 * condition waits (never bare sleeps), process liveness, notification
 * collection on SDK clients, a free port, and an in-process paginating MCP
 * backend over real streamable HTTP.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import type { IncomingHttpHeaders } from 'node:http';
import {
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ReadResourceRequestSchema,
  isInitializeRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Notification } from '@modelcontextprotocol/sdk/types.js';
import { fixtureCommand } from '../fixtures/spawn.js';

/** Polls `cond` until it returns a truthy value; rejects with `what` after `timeoutMs`. */
export async function waitFor<T>(cond: () => T | Promise<T>, what: string, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await cond();
      if (v) return v;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${lastErr ? ` (last error: ${String(lastErr)})` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** True while the process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return true; // no /proc: trust kill(0)
  }
}

/**
 * Records every notification a client receives (whatever the method), so a
 * test can wait for one. Uses the SDK's fallback handler: per-method handlers
 * set by the test still take precedence.
 */
export interface NotificationLog {
  all: Notification[];
  waitFor(method: string, pred?: (n: Notification) => boolean, timeoutMs?: number): Promise<Notification>;
  count(method: string): number;
}

export function collectNotifications(client: Client): NotificationLog {
  const all: Notification[] = [];
  const waiters = new Set<() => void>();
  client.fallbackNotificationHandler = async (n) => {
    all.push(n);
    for (const w of [...waiters]) w();
  };
  return {
    all,
    count: (method) => all.filter((n) => n.method === method).length,
    waitFor(method, pred = () => true, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = all.find((n) => n.method === method && pred(n));
          if (!hit) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(hit);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${method} notification within ${timeoutMs} ms; got: ${JSON.stringify(all.map((n) => n.method))}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

/** A TCP port that was free a moment ago (for a backend that starts after the gateway). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

export interface PagedBackend {
  url: string;
  /** Headers of every HTTP request the backend received (method, path and headers). */
  requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders }>;
  /** Cursors received per list method (undefined = first page). */
  cursors: Record<string, Array<string | undefined>>;
  close(): Promise<void>;
}

/**
 * A real MCP server (low-level SDK Server over streamable HTTP or SSE, in
 * this process) whose list methods return `pageSize` items per page with
 * `nextCursor`, so a client that ignores the cursor sees only the first page.
 * It records the headers of every HTTP request it receives.
 */
export async function startPagedBackend(opts: {
  tools: number;
  resources: number;
  templates: number;
  prompts: number;
  pageSize: number;
  transport?: 'streamable-http' | 'sse';
  /**
   * Also offer tool `ask`: it sends the client a sampling request asking for
   * progress (a progress token), and returns JSON {answer, progress} with the
   * progress notifications it received for it.
   */
  askTool?: boolean;
}): Promise<PagedBackend> {
  const requests: PagedBackend['requests'] = [];
  const cursors: Record<string, Array<string | undefined>> = {};
  const page = <T>(method: string, items: T[], cursor: string | undefined) => {
    (cursors[method] ??= []).push(cursor);
    const start = cursor ? Number(cursor.replace('page-', '')) : 0;
    const next = start + opts.pageSize;
    return { items: items.slice(start, next), nextCursor: next < items.length ? `page-${next}` : undefined };
  };
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);
  const tools = range(opts.tools).map((i) => ({ name: `ptool${i}`, description: `paged tool ${i}`, inputSchema: { type: 'object' as const, properties: {} } }));
  if (opts.askTool) tools.push({ name: 'ask', description: 'sampling with progress', inputSchema: { type: 'object', properties: {} } });
  const resources = range(opts.resources).map((i) => ({ uri: `paged://r/${i}`, name: `r${i}`, mimeType: 'text/plain' }));
  const templates = range(opts.templates).map((i) => ({ uriTemplate: `paged://t${i}/{id}`, name: `t${i}` }));
  const prompts = range(opts.prompts).map((i) => ({ name: `pprompt${i}`, description: `paged prompt ${i}` }));

  const makeServer = () => {
    const server = new Server({ name: 'paged', version: '1.0.0' }, { capabilities: { tools: {}, resources: {}, prompts: {} } });
    server.setRequestHandler(ListToolsRequestSchema, (req) => {
      const p = page('tools/list', tools, req.params?.cursor);
      return { tools: p.items, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) };
    });
    server.setRequestHandler(ListResourcesRequestSchema, (req) => {
      const p = page('resources/list', resources, req.params?.cursor);
      return { resources: p.items, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) };
    });
    server.setRequestHandler(ListResourceTemplatesRequestSchema, (req) => {
      const p = page('resources/templates/list', templates, req.params?.cursor);
      return { resourceTemplates: p.items, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) };
    });
    server.setRequestHandler(ListPromptsRequestSchema, (req) => {
      const p = page('prompts/list', prompts, req.params?.cursor);
      return { prompts: p.items, ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      if (req.params.name === 'ask') {
        const progress: unknown[] = [];
        const result = await extra.sendRequest(
          { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'with progress' } }], maxTokens: 5 } },
          CreateMessageResultSchema,
          { onprogress: (p) => progress.push(p) },
        );
        return { content: [{ type: 'text', text: JSON.stringify({ answer: result.content, progress }) }] };
      }
      return { content: [{ type: 'text', text: `called ${req.params.name}` }] };
    });
    server.setRequestHandler(ReadResourceRequestSchema, (req) => ({ contents: [{ uri: req.params.uri, text: `read ${req.params.uri}` }] }));
    return server;
  };

  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const sseSessions = new Map<string, SSEServerTransport>();
  const http: HttpServer = createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
    if (opts.transport === 'sse') {
      if (req.method === 'GET') {
        const t = new SSEServerTransport('/messages', res);
        sseSessions.set(t.sessionId, t);
        void makeServer().connect(t);
        return;
      }
      const t = sseSessions.get(new URL(req.url ?? '/', 'http://x').searchParams.get('sessionId') ?? '');
      if (!t) return void res.writeHead(404).end();
      void t.handlePostMessage(req, res);
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      void (async () => {
        const parsed = body ? JSON.parse(body) : undefined;
        const id = req.headers['mcp-session-id'];
        let transport = typeof id === 'string' ? sessions.get(id) : undefined;
        if (!transport) {
          if (req.method !== 'POST' || !isInitializeRequest(parsed)) {
            res.writeHead(400).end();
            return;
          }
          const t = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (sid) => void sessions.set(sid, t),
          });
          transport = t;
          await makeServer().connect(t);
        }
        await transport.handleRequest(req, res, parsed);
      })().catch(() => res.writeHead(500).end());
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (http.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/${opts.transport === 'sse' ? 'sse' : 'mcp'}`,
    cursors,
    requests,
    async close() {
      for (const t of [...sessions.values(), ...sseSessions.values()]) await t.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/** A stdio backend config running the fixture server. */
export const stdioFixture = (args: string[] = []) => ({ type: 'stdio', ...fixtureCommand(args) });

/** Calls a fixture's `whoami` tool: which server and process answered. */
export async function whoami(client: Client, tool: string): Promise<{ name: string; pid: number }> {
  const r = await client.callTool({ name: tool, arguments: {} });
  return JSON.parse((r.content as Array<{ text: string }>)[0].text);
}
