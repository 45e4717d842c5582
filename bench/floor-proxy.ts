/**
 * The floor: the least any Node process between an MCP client and an HTTP
 * backend can cost. A transparent reverse proxy on node:http that forwards
 * every request (method, path, headers, body) to one backend over a
 * keep-alive agent and streams the answer back, byte for byte. No parsing,
 * no routing, no MCP, no logging.
 *
 *   node dist/bench/floor-proxy.js --target http://127.0.0.1:PORT/mcp [--port 0]
 *
 * Prints `LISTENING <port>`. The bench puts it beside the gateway so that
 * "gateway CPU per call" can be read against what two loopback HTTP hops in
 * one Node process cost on the same machine at the same moment.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { target: { type: 'string' }, port: { type: 'string', default: '0' } } });
if (!values.target) throw new Error('usage: floor-proxy.js --target URL [--port N]');
const target = new URL(values.target);
const agent = new http.Agent({ keepAlive: true });

const server = http.createServer((req, res) => {
  const headers = { ...req.headers, host: target.host };
  const upstream = http.request({ hostname: target.hostname, port: target.port, path: target.pathname, method: req.method, headers, agent }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.once('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
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
