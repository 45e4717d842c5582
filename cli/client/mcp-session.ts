/**
 * MCP calls as a client of the gateway's /mcp endpoint, for commands given an
 * MCP client token (`--mcp-token`, GATEWAY_MCP_TOKEN): a real SDK Client,
 * opened for one piece of work and closed. An HTTP answer is an error the
 * server gave (a 401 an authentication problem), never "cannot reach".
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { GATEWAY_VERSION } from '../../runtime/version.js';
import { errorBodyOf, httpError, networkReason, UnreachableError } from './errors.js';

export interface McpTarget {
  /** The gateway's base URL (its MCP listener). */
  baseUrl: string;
  /** The client's bearer token (incoming_auth). */
  token?: string;
}

export async function withMcpClient<R>(target: McpTarget, work: (client: Client) => Promise<R>): Promise<R> {
  // Loaded on use: most commands never need the SDK.
  const [{ Client }, { StreamableHTTPClientTransport, StreamableHTTPError }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const url = `${target.baseUrl}/mcp`;
  /** The SDK's error for an HTTP answer carries the status as `code` and the body after its own words. */
  const failure = (err: unknown): Error => {
    if (err instanceof StreamableHTTPError && typeof err.code === 'number' && err.code >= 400) {
      const body = err.message.replace(/^Streamable HTTP error: (Error POSTing to endpoint: )?/, '');
      return httpError(err.code, errorBodyOf(err.code, '', body), url, 'mcp');
    }
    return err as Error;
  };
  const client = new Client({ name: 'gateway-client', version: GATEWAY_VERSION });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: target.token ? { headers: { authorization: `Bearer ${target.token}` } } : undefined,
  });
  try {
    await client.connect(transport);
  } catch (err) {
    await client.close().catch(() => undefined);
    const answered = failure(err);
    throw answered !== err ? answered : new UnreachableError(target.baseUrl, networkReason(err));
  }
  try {
    return await work(client);
  } catch (err) {
    throw failure(err);
  } finally {
    // End the gateway's session now rather than leaving it to expire.
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}
