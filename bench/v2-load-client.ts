/**
 * A load-generator client of the SDK's v2 line (`@modelcontextprotocol/client`),
 * beside the 1.x `Client` the rest of the bench uses (issue 32). Pinned to
 * 2026-07-28 it makes stateless calls (server/discover once at connect, then
 * every request carries the revision's `_meta` envelope and headers); in
 * `auto` or `legacy` mode against a server without 2026-07-28 it runs a
 * 2025-11-25 session, which is how it reaches the 1.x fixture backend directly.
 */
import { Client, StreamableHTTPClientTransport, type Transport, type VersionNegotiationMode } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ownSignalFetch } from './own-signal-fetch.js';

/** How a v2 client chooses its revision: `pin` = 2026-07-28 or fail; `auto` = server/discover, falling back to initialize. */
export type V2Negotiation = 'pin-2026-07-28' | 'auto' | 'legacy';

/** What the load generator asks of a client (the subset of the SDK's Client it drives). */
export interface V2LoadClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }, _unused: undefined, opts: { timeout: number }): Promise<unknown>;
  listTools(): Promise<unknown>;
  request(request: { method: string }): Promise<unknown>;
  close(): Promise<void>;
}

const MODES: Record<V2Negotiation, VersionNegotiationMode> = {
  'pin-2026-07-28': { pin: '2026-07-28' },
  auto: 'auto',
  legacy: 'legacy',
};

export async function connectV2(opts: {
  transport: 'streamable-http' | 'stdio';
  url: string;
  negotiation: V2Negotiation;
  headers?: Record<string, string>;
  command?: { command: string; args: string[] };
}): Promise<V2LoadClient> {
  const client = new Client({ name: 'bench-loadgen-v2', version: '2.0.0' }, { versionNegotiation: { mode: MODES[opts.negotiation] } });
  const transport: Transport =
    opts.transport === 'stdio'
      ? new StdioClientTransport({ ...opts.command!, stderr: 'ignore' })
      : new StreamableHTTPClientTransport(new URL(opts.url), { requestInit: { headers: opts.headers }, fetch: ownSignalFetch });
  await client.connect(transport);
  if (opts.negotiation === 'pin-2026-07-28' && client.getNegotiatedProtocolVersion() !== '2026-07-28')
    throw new Error(`pinned client negotiated ${client.getNegotiatedProtocolVersion()}`);
  return {
    callTool: (params, _unused, o) => client.callTool(params, o),
    listTools: () => client.listTools(),
    // Bare requests (the `call` and `list` methods, a tool-name pattern) are the 1.x client's: the rows of this
    // client are the way applications call, `callTool()` after `listTools()`.
    request: (request) => Promise.reject(new Error(`the v2 load client makes calltool calls only, not a bare ${request.method}`)),
    close: () => client.close(),
  };
}
