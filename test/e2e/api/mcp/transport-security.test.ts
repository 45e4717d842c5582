/**
 * Issue 10 §3: DNS-rebinding protection. A request whose Host is not this
 * gateway's, or whose Origin is not allowed, gets 403 with a JSON body (a
 * JSON-RPC error on MCP paths, the spec's error body under /manage/v1);
 * requests without Origin are judged by Host alone; server.allowed_hosts and
 * server.allowed_origins widen the defaults, and follow reloads.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { TransportSecurity } from '../../../../api/transport-security.js';

/** A raw HTTP request with exactly the headers given (fetch would not let a test set Host). */
function send(url: string, opts: { method?: string; headers: Record<string, string>; body?: string }): Promise<{ status: number; body: unknown }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON (an SSE stream head, for instance)
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
      // An accepted SSE GET never ends by itself: the status is all these tests need.
      if (String(res.headers['content-type']).startsWith('text/event-stream')) {
        resolve({ status: res.statusCode ?? 0, body: '' });
        res.destroy();
      }
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'rebinding-test', version: '1' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('DNS-rebinding protection', () => {
  let h: Harness;
  let port: string;

  beforeAll(async () => {
    h = await startGateway({ feature_flags: { hot_reload: true } });
    port = new URL(h.url).port;
  });
  afterAll(async () => h?.close());

  it('refuses a foreign Host on every MCP path with a JSON-RPC 403', async () => {
    for (const [method, path, body] of [
      ['POST', '/mcp', INIT],
      ['GET', '/sse', undefined],
      ['POST', '/messages?sessionId=x', '{}'],
    ] as const) {
      const res = await send(`${h.url}${path}`, { method, headers: { ...MCP_HEADERS, host: 'evil.example.com' }, body });
      expect(res.status, path).toBe(403);
      expect(res.body, path).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('evil.example.com') } });
    }
  });

  it('refuses a foreign Host on the management API with the spec error body, even on public endpoints', async () => {
    for (const path of ['/manage/v1/health', '/manage/v1/backends', '/manage/v1']) {
      const res = await send(`${h.url}${path}`, { headers: { host: `evil.example.com:${port}` } });
      expect(res.status, path).toBe(403);
      expect(res.body, path).toMatchObject({ error: 'forbidden', message: expect.stringContaining('Host'), details: {} });
    }
  });

  it('refuses a foreign Origin even with a good Host', async () => {
    const res = await send(`${h.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, host: `localhost:${port}`, origin: 'http://evil.example.com' },
      body: INIT,
    });
    expect(res.status).toBe(403);
    expect((res.body as { error: { message: string } }).error.message).toContain('Origin');
    const manage = await send(`${h.url}/manage/v1/status`, { headers: { host: `127.0.0.1:${port}`, origin: 'https://evil.example.com' } });
    expect(manage.status).toBe(403);
    expect((manage.body as { error: string }).error).toBe('forbidden');
  });

  it('accepts loopback Host and Origin (any port), and requests without Origin', async () => {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'localhost']) {
      const res = await send(`${h.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, host, origin: `http://${host}` }, body: INIT });
      expect(res.status, host).toBe(200);
    }
    const noOrigin = await send(`${h.url}/manage/v1/health`, { headers: { host: `localhost:${port}` } });
    expect(noOrigin.status).toBe(200);
  });

  it('a page on another localhost port cannot reload or shut the gateway down (simple cross-origin requests, issue 28)', async () => {
    const host = `127.0.0.1:${port}`;
    const page = 'http://localhost:3000';
    // A CORS "simple" request needs no preflight: text/plain, or no body at all.
    const plain = await send(`${h.url}/manage/v1/reload`, { method: 'POST', headers: { host, origin: page, 'content-type': 'text/plain' }, body: '{}' });
    expect(plain.status).toBe(403);
    expect(plain.body).toMatchObject({ error: 'forbidden', message: expect.stringContaining("cross-origin POST from 'http://localhost:3000'") });
    const bodiless = await send(`${h.url}/manage/v1/shutdown`, { method: 'POST', headers: { host, origin: page } });
    expect(bodiless.status).toBe(403);
    // Reading is not changing: a GET from that page is judged by the DNS-rebinding rules only (loopback is allowed).
    expect((await send(`${h.url}/manage/v1/health`, { headers: { host, origin: page } })).status).toBe(200);
    // The gateway's own origin may change it; so may a client that is no browser (no Origin).
    const own = await send(`${h.url}/manage/v1/reload`, { method: 'POST', headers: { host, origin: `http://${host}` } });
    expect(own.status).toBe(200);
    expect((await send(`${h.url}/manage/v1/reload`, { method: 'POST', headers: { host } })).status).toBe(200);
    // A body that is not JSON is refused whoever sends it.
    const text = await send(`${h.url}/manage/v1/reload`, { method: 'POST', headers: { host, 'content-type': 'text/plain' }, body: 'reload' });
    expect(text.status).toBe(415);
    expect(text.body).toMatchObject({ error: 'unsupported_media_type' });
    expect(h.gateway.controller.state).toBe('running');
  });

  it('server.allowed_hosts and server.allowed_origins widen the defaults after a reload', async () => {
    const before = await send(`${h.url}/manage/v1/health`, { headers: { host: `gateway.internal:${port}`, origin: 'https://app.example.com' } });
    expect(before.status).toBe(403);
    h.writeConfig({
      server: { host: '127.0.0.1', port: 0, allowed_hosts: ['gateway.internal'], allowed_origins: ['https://app.example.com'] },
      feature_flags: { hot_reload: true },
    });
    await h.gateway.controller.reload('api');
    const after = await send(`${h.url}/manage/v1/health`, { headers: { host: `gateway.internal:${port}`, origin: 'https://app.example.com' } });
    expect(after.status).toBe(200);
    const otherOrigin = await send(`${h.url}/manage/v1/health`, { headers: { host: `gateway.internal:${port}`, origin: 'https://other.example.com' } });
    expect(otherOrigin.status).toBe(403);
  });
});

describe('TransportSecurity rules', () => {
  it('bound to loopback: loopback names on any port; configured names with or without a port', () => {
    const s = new TransportSecurity('127.0.0.1');
    const allowed = { hosts: ['api.local', 'pinned.local:8443'] };
    expect(s.check('localhost:1234', undefined, allowed).ok).toBe(true);
    expect(s.check('[::1]:9', undefined, allowed).ok).toBe(true);
    expect(s.check('api.local:80', undefined, allowed).ok).toBe(true);
    expect(s.check('pinned.local:8443', undefined, allowed).ok).toBe(true);
    expect(s.check('pinned.local:9000', undefined, allowed).ok).toBe(false);
    expect(s.check('localhost.evil.com', undefined, allowed).ok).toBe(false);
    expect(s.check(undefined, undefined, allowed).ok).toBe(false);
  });

  it('bound elsewhere: the bind host, not loopback names; origins need a match', () => {
    const s = new TransportSecurity('10.1.2.3');
    expect(s.check('10.1.2.3:9000', undefined, {}).ok).toBe(true);
    expect(s.check('localhost:9000', undefined, {}).ok).toBe(false);
    expect(s.check('10.1.2.3:9000', 'null', {}).ok).toBe(false);
    expect(s.check('10.1.2.3:9000', 'http://10.1.2.3:9000', {}).ok).toBe(true);
    expect(s.check('10.1.2.3:9000', 'https://ui.example.com', { origins: ['https://ui.example.com/'] }).ok).toBe(true);
    expect(s.check('10.1.2.3:9000', 'https://ui.example.com:444', { origins: ['https://ui.example.com'] }).ok).toBe(false);
  });
});
