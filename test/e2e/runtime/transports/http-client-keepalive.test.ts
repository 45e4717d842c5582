/**
 * A kept-alive connection to a streamable-HTTP backend is retired before the
 * Keep-Alive timeout the backend announces, so a call is never sent on a
 * connection the backend is just closing (the call would fail with "socket
 * hang up"). Node's agent honours the announcement only when it has an idle
 * timeout of its own: the transport must give it one.
 *
 * The backend here announces `Keep-Alive: timeout=2` but keeps connections
 * open; a request arriving on a connection idle for longer than that is
 * answered by destroying the connection, which is what a real backend's
 * close racing with the request looks like from the client.
 *
 * The same holds for a backend with OAuth: the transport factory gives every
 * streamable-HTTP backend the same client, so the fix reaches it too.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { NodeStreamableHttpClientTransport } from '../../../../runtime/transports/node-streamable-http-client-transport.js';
import { AS_PROCESS, createBackendTransport } from '../../../../runtime/transports/create-backend-transport.js';

const ANNOUNCED_S = 2;

describe('streamable-HTTP client transport: kept-alive connections', () => {
  let server: Server | undefined;
  let transport: Transport | undefined;
  afterEach(async () => {
    await transport?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
    transport = undefined;
  });

  /** The only part of an OAuth provider a backend that accepts the token asks for: the token. */
  const provider = { tokens: async () => ({ access_token: 'kept-alive-token', token_type: 'Bearer' }) } as unknown as OAuthClientProvider;
  const transports: Array<[string, (url: URL) => Transport]> = [
    ['no auth', (url) => new NodeStreamableHttpClientTransport(url)],
    [
      'OAuth',
      (url) => createBackendTransport('b', { type: 'streamable-http', url: url.href, auth: { type: 'oauth' } }, AS_PROCESS, { httpAuth: () => ({ provider }) }),
    ],
  ];

  it.each(transports)('retires an idle connection before the announced timeout, so a later call opens a new one (%s)', async (kind, make) => {
    const lastAnswer = new WeakMap<Socket, number>();
    const authorizations = new Set<string | undefined>();
    const connections = new Set<Socket>();
    let staleReuses = 0;
    server = createServer((req, res) => {
      const socket = req.socket;
      connections.add(socket);
      authorizations.add(req.headers.authorization);
      const idleSince = lastAnswer.get(socket);
      if (idleSince !== undefined && Date.now() - idleSince > ANNOUNCED_S * 1000) {
        staleReuses++;
        socket.destroy();
        return;
      }
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.once('end', () => {
        const { id } = JSON.parse(body) as { id: number };
        res.writeHead(200, { 'content-type': 'application/json', 'keep-alive': `timeout=${ANNOUNCED_S}` });
        res.end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }), () => lastAnswer.set(socket, Date.now()));
      });
    });
    // The server itself never closes an idle connection during the test.
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);

    transport = make(url);
    const answers: JSONRPCMessage[] = [];
    const errors: Error[] = [];
    transport.onmessage = (m) => answers.push(m);
    transport.onerror = (e) => errors.push(e);
    await transport.start();

    await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await expect.poll(() => answers.length).toBe(1);
    // Longer than the announced timeout: the first connection must not be used again.
    await sleep(ANNOUNCED_S * 1000 + 1000);
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await expect.poll(() => answers.length).toBe(2);

    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    expect(staleReuses).toBe(0);
    expect(connections.size).toBe(2);
    expect(errors).toEqual([]);
    expect([...authorizations]).toEqual([kind === 'OAuth' ? 'Bearer kept-alive-token' : undefined]);
  });
});
