/**
 * MCP calls where the management API has no route (prompts/get): a real SDK
 * Client on the gateway's /mcp endpoint, opened for one piece of work and closed.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { GATEWAY_VERSION } from '../../runtime/version.js';
import { networkReason, UnreachableError } from './errors.js';

export async function withMcpClient<R>(baseUrl: string, work: (client: Client) => Promise<R>): Promise<R> {
  // Loaded on use: most commands never need the SDK.
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const client = new Client({ name: 'gateway-client', version: GATEWAY_VERSION });
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
    // End the gateway's session now rather than leaving it to expire.
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}
