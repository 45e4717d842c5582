/**
 * Bench-only MCP backend: a deliberately cheap echo server, so that the
 * numbers of a run show the cost of what sits between client and backend
 * (the gateway, mcp-hub) rather than the cost of the SDK's own server.
 *
 *   node dist/bench/backend.js --transport http|stdio [--tool-count N] [--name NAME]
 *
 * HTTP: streamable HTTP on 127.0.0.1 (random port, printed as `LISTENING <port>`),
 * stateful sessions (`Mcp-Session-Id`), plain JSON responses, 405 on GET (no
 * standalone stream), DELETE ends the session. stdio: newline-delimited JSON-RPC.
 *
 * Tools: `echo` (returns its `text` as text content and as structuredContent,
 * like the test fixture's echo) and, with --tool-count N, t0..t{N-1}, each with
 * a realistic description and input schema (for the tools/list scale test).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

type Json = Record<string, unknown>;
interface RpcMessage {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: Json;
}

const { values } = parseArgs({
  options: {
    transport: { type: 'string', default: 'http' },
    'tool-count': { type: 'string', default: '0' },
    name: { type: 'string', default: 'bench' },
    port: { type: 'string', default: '0' },
  },
});

const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const name = values.name;

const tools: Json[] = [
  {
    name: 'echo',
    description: 'Returns its input, as text and as structured content',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    outputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  },
];
for (let i = 0; i < Number(values['tool-count']); i++) {
  tools.push({
    name: `t${i}`,
    description: `Scale tool ${i} of ${name}: echoes its text back. Stands in for a typical tool with a one-line description and a small schema.`,
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string', description: 'Text to echo' },
        repeat: { type: 'integer', minimum: 1, maximum: 10, description: 'How many times' },
      },
      required: ['text'],
      additionalProperties: false,
    },
  });
}
const toolsList = { tools };

function handle(msg: RpcMessage): RpcMessage | Json | undefined {
  if (msg.id === undefined || msg.method === undefined) return undefined; // notification or response
  const ok = (result: Json) => ({ jsonrpc: '2.0', id: msg.id, result });
  const fail = (code: number, message: string) => ({ jsonrpc: '2.0', id: msg.id, error: { code, message } });
  switch (msg.method) {
    case 'initialize': {
      const asked = String(msg.params?.protocolVersion ?? '');
      return ok({
        protocolVersion: SUPPORTED_VERSIONS.includes(asked) ? asked : SUPPORTED_VERSIONS[0],
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name, version: '1.0.0' },
      });
    }
    case 'ping':
      return ok({});
    case 'tools/list':
      return ok(toolsList);
    case 'tools/call': {
      const tool = msg.params?.name;
      const args = (msg.params?.arguments ?? {}) as Json;
      const text = typeof args.text === 'string' ? args.text : '';
      if (tool === 'echo') return ok({ content: [{ type: 'text', text }], structuredContent: { text } });
      if (typeof tool === 'string' && /^t\d+$/.test(tool) && Number(tool.slice(1)) < tools.length - 1) {
        return ok({ content: [{ type: 'text', text }] });
      }
      return fail(-32602, `Unknown tool: ${String(tool)}`);
    }
    default:
      return fail(-32601, `Method not found: ${msg.method}`);
  }
}

function serveStdio(): void {
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    pending += chunk;
    let nl: number;
    let out = '';
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (!line.trim()) continue;
      const reply = handle(JSON.parse(line) as RpcMessage);
      if (reply) out += JSON.stringify(reply) + '\n';
    }
    if (out) process.stdout.write(out);
  });
  process.stdin.on('end', () => process.exit(0));
}

function serveHttp(): void {
  const sessions = new Set<string>();
  const send = (res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
    if (body === undefined) {
      res.writeHead(status, headers).end();
      return;
    }
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers }).end(text);
  };
  const rpcError = (res: ServerResponse, status: number, code: number, message: string) =>
    send(res, status, { jsonrpc: '2.0', id: null, error: { code, message } });

  const onRequest = (req: IncomingMessage, res: ServerResponse, body: string) => {
    if (!req.url?.startsWith('/mcp')) return send(res, 404);
    const sid = req.headers['mcp-session-id'];
    if (req.method === 'GET') return send(res, 405, undefined, { allow: 'POST, DELETE' });
    if (req.method === 'DELETE') {
      if (typeof sid === 'string') sessions.delete(sid);
      return send(res, 200);
    }
    if (req.method !== 'POST') return send(res, 405);
    let parsed: RpcMessage | RpcMessage[];
    try {
      parsed = JSON.parse(body) as RpcMessage | RpcMessage[];
    } catch {
      return rpcError(res, 400, -32700, 'Parse error');
    }
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    const headers: Record<string, string> = {};
    if (messages.some((m) => m.method === 'initialize')) {
      const id = randomUUID();
      sessions.add(id);
      headers['mcp-session-id'] = id;
    } else if (typeof sid !== 'string' || !sessions.has(sid)) {
      return rpcError(res, typeof sid === 'string' ? 404 : 400, -32001, 'Session not found');
    }
    const replies = messages.map(handle).filter((r) => r !== undefined);
    if (replies.length === 0) return send(res, 202, undefined, headers);
    return send(res, 200, Array.isArray(parsed) ? replies : replies[0], headers);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => onRequest(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.keepAliveTimeout = 60_000;
  server.listen(Number(values.port), '127.0.0.1', () => {
    const addr = server.address();
    process.stdout.write(`LISTENING ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (values.transport === 'stdio') serveStdio();
else serveHttp();
