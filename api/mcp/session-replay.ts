/**
 * Makes a session's SDK Server believe it is initialized, on a replica that
 * never saw the client's `initialize`: the stored initialize request and
 * `notifications/initialized` are replayed to it through an in-memory
 * transport, then that transport is let go, and the real one can be
 * attached. Only the SDK's public API: the server learns the client's
 * capabilities, info and protocol version as it would have on the wire.
 */
import { InMemoryTransport, type JSONRPCMessage, type Server } from '@modelcontextprotocol/server';
import type { InitializeParams } from './client-session.js';

export async function replayInitialize(server: Server, params: InitializeParams): Promise<void> {
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const answered = new Promise<JSONRPCMessage>((resolve) => {
    client.onmessage = (m) => {
      if ('id' in m && m.id === 0) resolve(m);
    };
  });
  // Resolves when the server has run its own handling of notifications/initialized.
  const initialized = new Promise<void>((resolve) => {
    const own = server.oninitialized;
    server.oninitialized = () => {
      server.oninitialized = own;
      own?.();
      resolve();
    };
  });
  await server.connect(serverSide);
  await client.start();
  await client.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params });
  const answer = await answered;
  if ('error' in answer) throw new Error(`replaying initialize failed: ${JSON.stringify(answer.error)}`);
  await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await initialized;
  // Closing detaches the in-memory transport; what initialize taught the server stays.
  await server.close();
}
