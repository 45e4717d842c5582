/**
 * MCP calls as a client of the gateway's /mcp endpoint, for commands given an
 * MCP client token (`--mcp-token`, GATEWAY_MCP_TOKEN): a real SDK (v2) Client,
 * opened for one piece of work and closed. It negotiates the revision
 * (`auto`): 2026-07-28 where the gateway serves it, else a 2025-11-25
 * session. An HTTP answer is an error the server gave (a 401 an
 * authentication problem), never "cannot reach".
 */
import type { Client } from '@modelcontextprotocol/client';
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
  const { Client, StreamableHTTPClientTransport, SdkHttpError } = await import('@modelcontextprotocol/client');
  const url = `${target.baseUrl}/mcp`;
  /** The SDK's error for an HTTP answer carries the status and the body it read. */
  const failure = (err: unknown): Error => {
    if (err instanceof SdkHttpError && err.status >= 400) {
      const text = typeof err.data.text === 'string' ? err.data.text : err.message.replace(/^Error POSTing to endpoint: /, '');
      return httpError(err.status, errorBodyOf(err.status, '', text), url, 'mcp');
    }
    return err as Error;
  };
  const client = new Client({ name: 'gateway-client', version: GATEWAY_VERSION }, { versionNegotiation: { mode: 'auto' } });
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
    // End the gateway's session now rather than leaving it to expire (a 2026-07-28 connection has none).
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}
