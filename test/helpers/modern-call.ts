/** Raw 2026-07-28 requests over HTTP, for tests that look at what a client library would hide (a state, an `input_required`, a task). */

import { NAME_SOURCE } from '../../runtime/transports/mcp-request-headers.js';

export interface RawAnswer {
  result?: Record<string, any>;
  error?: { code: number; message: string; data?: any };
  /** What came on the response stream before the answer (progress, log messages). */
  notifications?: Array<{ method: string; params?: Record<string, any> }>;
}

export interface RawRequestOptions {
  token?: string;
  capabilities?: Record<string, unknown>;
  /** Asks for progress (`_meta.progressToken`). */
  progressToken?: string;
}

/** POSTs the call with the revision's headers and `_meta` envelope; answers the JSON-RPC body (the last event of an SSE answer). */
export function modernToolCall(url: string, params: Record<string, unknown>, opts: RawRequestOptions = {}): Promise<RawAnswer> {
  return modernRequest(url, 'tools/call', params, opts);
}

/** Any 2026-07-28 request, raw: the headers its method needs (`Mcp-Name` from its body) and the `_meta` envelope. */
export async function modernRequest(url: string, method: string, params: Record<string, unknown>, opts: RawRequestOptions = {}): Promise<RawAnswer> {
  const nameField = NAME_SOURCE[method];
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(nameField ? { 'mcp-name': String(params[nameField]) } : {}),
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': opts.capabilities ?? { elicitation: {} },
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          ...(opts.progressToken !== undefined ? { progressToken: opts.progressToken } : {}),
        },
      },
    }),
  });
  const text = await res.text();
  // A slow answer comes as an SSE stream whose last event is the answer, after the notifications.
  if (text.startsWith('{')) return JSON.parse(text) as RawAnswer;
  const events = text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, any>);
  return { ...(events.at(-1) as RawAnswer), notifications: events.slice(0, -1).filter((e) => typeof e.method === 'string') as RawAnswer['notifications'] };
}
