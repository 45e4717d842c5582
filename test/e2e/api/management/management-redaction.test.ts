/**
 * Backend error text can echo a credential (an HTTP error page quoting the
 * Authorization header). The logs are redacted; the management API must be
 * too, since /backends, /events and /events/stream carry those messages.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';

const TOKEN = 'mgmt-redaction-credential-0123456789';

describe('management API redaction', () => {
  let echoing: Server;
  let h: Harness;

  beforeAll(async () => {
    echoing = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(500).end(`rejected Authorization=${req.headers.authorization}`));
    });
    await new Promise<void>((resolve) => echoing.listen(0, '127.0.0.1', resolve));
    const { port } = echoing.address() as AddressInfo;
    h = await startGateway({
      controller: { backoff_initial_ms: 60_000, backoff_max_ms: 60_000 },
      backends: { leaky: { type: 'streamable-http', url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: `Bearer ${TOKEN}` } } },
    });
  });

  afterAll(async () => {
    await h?.close();
    echoing?.close();
  });

  it('the backend error really echoes the credential (the test can fail)', () => {
    const raw = JSON.stringify(h.gateway.events.list());
    expect(raw).toContain(TOKEN);
  });

  it.each(['/backends', '/events', '/batch'])('GET %s never shows the credential', async (path) => {
    const res = await fetch(`${h.url}/manage/v1${path}`);
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).not.toContain(TOKEN);
    expect(body).toContain('[REDACTED]');
  });

  it('the live event stream is redacted too', async () => {
    const controller = new AbortController();
    const res = await fetch(`${h.url}/manage/v1/events/stream`, { signal: controller.signal });
    const reader = res.body!.getReader();
    const reconnect = fetch(`${h.url}/manage/v1/reconnect/leaky`, { method: 'POST' });
    let text = '';
    while (!/data: .*failed to connect/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    await reconnect;
    expect(text).toMatch(/failed to connect/);
    expect(text).not.toContain(TOKEN);
    expect(text).toContain('[REDACTED]');
  });
});
