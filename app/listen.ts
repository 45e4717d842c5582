/**
 * Step 4 of start-up: the HTTP listener (MCP endpoints and the management
 * API), bound before any backend starts, so a port in use fails fast.
 */
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../schemas/errors.js';
import type { GatewayConfig } from '../schemas/config.js';
import { ConsoleSessions } from '../api/management/console-sessions.js';
import type { Redactor } from '../runtime/observability/logging/redactor.js';
import { buildApp } from '../api/app.js';
import type { ListenAddress } from '../api/management/index.js';
import type { Runtime } from './runtime.js';
import type { McpFrontDoor } from './mcp-front-door.js';
import type { Observability } from './observability.js';

export interface ListenOptions {
  /** Overrides server.host / server.port from the config. */
  host?: string;
  port?: number;
}

export interface Listening {
  app: FastifyInstance;
  url: string;
}

export async function listen(
  config: GatewayConfig,
  opts: ListenOptions,
  runtime: Runtime,
  { logger, audit }: Pick<Observability, 'logger' | 'audit'>,
  redactor: Redactor,
  requestShutdown: (timeoutS?: number) => void,
  front: McpFrontDoor,
): Promise<Listening> {
  const { controller } = runtime;
  const host = opts.host ?? config.server.host;
  const port = opts.port ?? config.server.port;
  let address: ListenAddress = { host, port, url: '' };
  const app = await buildApp({
    logger,
    bindHost: host,
    allowedPeers: () => ({ hosts: controller.config.server.allowed_hosts, origins: controller.config.server.allowed_origins }),
    mcp: front.context,
    management: {
      controller,
      router: runtime.router,
      serving: runtime.serving,
      optimizer: runtime.optimizer,
      pins: runtime.pins,
      sessions: runtime.sessions,
      replicaId: runtime.replicaId,
      stopping: () => runtime.drain.stopping,
      events: controller.events,
      skills: runtime.skills,
      registry: runtime.registry,
      auth: runtime.auth,
      plugins: runtime.plugins,
      access: runtime.access,
      incomingAuth: runtime.incomingAuth,
      consoleSessions: new ConsoleSessions(() => controller.config.server.console.session_ttl_s * 1000),
      audit,
      redactor,
      listenAddress: () => address,
      requestShutdown,
      clients: front.clients,
    },
  });
  try {
    await app.listen({ host, port });
  } catch (err) {
    await app.close().catch(() => undefined);
    throw listenError(host, port, err);
  }
  const bound = app.server.address();
  const boundPort = typeof bound === 'object' && bound ? bound.port : port;
  const url = `http://${bracketed(host)}:${boundPort}`;
  address = { host, port: boundPort, url };
  return { app, url };
}

/** `cannot listen on 127.0.0.1:9000: address in use`: one line an operator can act on. */
function listenError(host: string, port: number, err: unknown): GatewayError {
  const code = (err as { code?: string }).code;
  const why =
    code === 'EADDRINUSE'
      ? 'address in use'
      : code === 'EACCES'
        ? 'permission denied'
        : code === 'EADDRNOTAVAIL'
          ? 'address not available'
          : (err as Error).message;
  return new GatewayError('listen_failed', `cannot listen on ${bracketed(host)}:${port}: ${why}`, { host, port, code });
}

function bracketed(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
