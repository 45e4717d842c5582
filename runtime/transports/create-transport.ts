/**
 * One place that turns a backend spec into an SDK client transport, so the
 * rest of the runtime deals only with the Transport abstraction.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { BackendSpec } from '../../schemas/config.js';
import { ProcessGroupStdioTransport } from './process-group-stdio-transport.js';
import { NodeStreamableHttpClientTransport } from './node-streamable-http-client-transport.js';
import { OrderedDeliveryTransport } from './ordered-delivery.js';
import { backendHeaders } from '../auth/auth-headers.js';

export interface TransportHooks {
  onstderr?: (line: string) => void;
  onexit?: (exit: { code: number | null; signal: NodeJS.Signals | null }) => void;
}

/** A transport made elsewhere (a stdio backend's container): it reports stderr and exit like a process does. */
export type LaunchedTransport = Transport & TransportHooks;

/**
 * A client transport for the backend, wrapped so that notifications are never
 * overtaken by their result. `launch`, when given, makes the transport (a
 * container for a stdio backend); otherwise the spec decides.
 */
export function createTransport(spec: BackendSpec, hooks: TransportHooks = {}, launch?: () => LaunchedTransport): OrderedDeliveryTransport {
  if (!launch) return new OrderedDeliveryTransport(createRawTransport(spec, hooks));
  const raw = launch();
  // A container reports stderr and exit like a process; an HTTP transport has neither and ignores them.
  raw.onstderr = hooks.onstderr;
  raw.onexit = hooks.onexit;
  return new OrderedDeliveryTransport(raw);
}

function createRawTransport(spec: BackendSpec, hooks: TransportHooks): Transport {
  switch (spec.type) {
    case 'stdio': {
      const t = new ProcessGroupStdioTransport({ command: spec.command, args: spec.args, env: spec.env, cwd: spec.cwd });
      t.onstderr = hooks.onstderr;
      t.onexit = hooks.onexit;
      return t;
    }
    case 'sse': {
      const headers = backendHeaders(spec);
      return new SSEClientTransport(new URL(spec.url), {
        requestInit: { headers },
        // The SSE GET is made by EventSource; it needs the headers too (auth).
        eventSourceInit: {
          fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
        },
      });
    }
    case 'streamable-http':
      // Node-native rather than the SDK's fetch-based transport: see docs/performance.md.
      return new NodeStreamableHttpClientTransport(new URL(spec.url), { headers: backendHeaders(spec) });
  }
}
