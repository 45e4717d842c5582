/**
 * MCP calls where the management API has no route (prompts/get): a real SDK
 * (v2) Client on the gateway's /mcp endpoint, opened for one piece of work and
 * closed. It negotiates the revision (`auto`): 2026-07-28 where the gateway
 * serves it, else a 2025-11-25 session.
 */
import type { Client } from '@modelcontextprotocol/client';
import { GATEWAY_VERSION } from '../../runtime/version.js';
import { networkReason, UnreachableError } from './errors.js';

export async function withMcpClient<R>(baseUrl: string, work: (client: Client) => Promise<R>): Promise<R> {
  // Loaded on use: most commands never need the SDK.
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const client = new Client({ name: 'gateway-client', version: GATEWAY_VERSION }, { versionNegotiation: { mode: 'auto' } });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`));
  try {
    await client.connect(transport);
  } catch (err) {
    await client.close().catch(() => undefined);
    throw new UnreachableError(baseUrl, networkReason(err));
  }
  try {
    return await work(client);
  } finally {
    // End the gateway's session now rather than leaving it to expire (a 2026-07-28 connection has none).
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}
