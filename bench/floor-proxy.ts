/**
 * The floor: the least any Node process between an MCP client and an HTTP
 * backend can cost. A transparent reverse proxy on node:http that forwards
 * every request (method, path and query, end-to-end headers, body) to one
 * backend origin over a keep-alive agent and streams the answer back without
 * reading it. No parsing, no routing, no MCP, no logging.
 *
 *   node dist/bench/floor-proxy.js --target http://127.0.0.1:PORT [--port 0]
 *
 * Only the target's origin is used: a request for /mcp goes to the backend's
 * /mcp. Prints `LISTENING <port>`. The bench puts it beside the gateway so that
 * "gateway CPU per call" can be read against what two loopback HTTP hops in
 * one Node process cost on the same machine at the same moment.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { target: { type: 'string' }, port: { type: 'string', default: '0' } } });
if (!values.target) throw new Error('usage: floor-proxy.js --target URL [--port N]');
const target = new URL(values.target);
// An idle timeout of its own lets the agent honour the backend's announced Keep-Alive
// timeout (as the gateway's backend transport does); without one Node ignores it.
const agent = new http.Agent({ keepAlive: true, timeout: 60_000 });

// Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection, not the message:
// the fixed ones, and any the message's own Connection header names.
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade'];
const endToEnd = (headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders => {
  const listed = (headers.connection ?? '').split(',').map((name) => name.trim().toLowerCase());
  const drop = new Set([...HOP_BY_HOP, ...listed]);
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !drop.has(name)) out[name] = value;
  return out;
};

/** Path and query only: an origin-form target as it came, an absolute-form one parsed. */
const pathOf = (url: string): string => {
  if (url.startsWith('/')) return url;
  try {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  } catch {
    return '/';
  }
};

const server = http.createServer((req, res) => {
  const path = pathOf(req.url ?? '/');
  const headers = { ...endToEnd(req.headers), host: target.host };
  const upstream = http.request({ hostname: target.hostname, port: target.port, path, method: req.method, headers, agent }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
    answer.pipe(res);
    // A backend that breaks off mid-answer must not leave the client waiting for the rest.
    answer.on('error', () => res.destroy());
  });
  upstream.on('error', () => {
    if (res.headersSent) res.destroy();
    else if (!res.writableEnded) res.writeHead(502).end();
  });
  req.on('error', () => upstream.destroy());
  // A client that goes away (a closed GET stream) ends the upstream request too.
  res.once('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
});
server.keepAliveTimeout = 60_000;
server.listen(Number(values.port), '127.0.0.1', () => {
  const address = server.address();
  console.log(`LISTENING ${typeof address === 'object' && address ? address.port : ''}`);
});
process.once('SIGTERM', () => process.exit(0));
