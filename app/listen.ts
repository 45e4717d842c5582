/**
 * Step 4 of start-up: the HTTP listeners, bound before any backend starts,
 * so a port in use fails fast. One listener serves the MCP endpoints and the
 * management API; with `server.management.port` the management API (its
 * health and readiness probes too) has a listener of its own, so a network
 * policy can keep it to operators, and the MCP port answers 404 under
 * /manage/v1.
 */
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../schemas/errors.js';
import type { GatewayConfig } from '../schemas/config.js';
import { ConsoleSessions } from '../api/management/console-sessions.js';
import type { Redactor } from '../runtime/observability/logging/redactor.js';
import { buildApp, type AppContext, type AppServes } from '../api/app.js';
import type { ListenAddress } from '../api/management/index.js';
import type { Runtime } from './runtime.js';
import type { McpFrontDoor } from './mcp-front-door.js';
import type { Observability } from './observability.js';

export interface ListenOptions {
  /** Overrides server.host / server.port from the config. */
  host?: string;
  port?: number;
}

export interface Bound {
  app: FastifyInstance;
  /** `http://host:port`, without a trailing slash. */
  url: string;
}

export interface Listening extends Bound {
  /** The management API's own listener (`server.management.port`); absent when it shares the MCP listener. */
  management?: Bound;
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
  const { management } = config.server;
  let address: ListenAddress = { host, port, url: '' };
  const ctx: AppContext = {
    logger,
    bindHost: host,
    allowedPeers: () => {
      const { allowed_hosts, allowed_origins, public_url } = controller.config.server;
      return { hosts: allowed_hosts, origins: allowed_origins, publicUrl: public_url };
    },
    mcp: front.context,
    signInCallbacks: runtime.signIns.callbacks,
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
      signIns: runtime.signIns,
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
  };
  if (management.port === undefined) {
    const bound = await bind(ctx, { mcp: true, management: true }, host, port);
    address = { host, port: boundPort(bound.app, port), url: bound.url };
    return bound;
  }
  const mcp = await bind(ctx, { mcp: true, management: false }, host, port);
  address = { host, port: boundPort(mcp.app, port), url: mcp.url };
  const managementHost = management.host ?? host;
  try {
    return { ...mcp, management: await bind({ ...ctx, bindHost: managementHost }, { mcp: false, management: true }, managementHost, management.port) };
  } catch (err) {
    await mcp.app.close().catch(() => undefined);
    throw err;
  }
}

async function bind(ctx: AppContext, serves: AppServes, host: string, port: number): Promise<Bound> {
  const app = await buildApp(ctx, serves);
  try {
    await app.listen({ host, port });
  } catch (err) {
    await app.close().catch(() => undefined);
    throw listenError(host, port, err, serves.mcp ? '' : ' (server.management.port)');
  }
  return { app, url: `http://${bracketed(host)}:${boundPort(app, port)}` };
}

function boundPort(app: FastifyInstance, asked: number): number {
  const bound = app.server.address();
  return typeof bound === 'object' && bound ? bound.port : asked;
}

/** `cannot listen on 127.0.0.1:9000: address in use`: one line an operator can act on; `which` names the management listener. */
function listenError(host: string, port: number, err: unknown, which: string): GatewayError {
  const code = (err as { code?: string }).code;
  const why =
    code === 'EADDRINUSE'
      ? 'address in use'
      : code === 'EACCES'
        ? 'permission denied'
        : code === 'EADDRNOTAVAIL'
          ? 'address not available'
          : (err as Error).message;
  return new GatewayError('listen_failed', `cannot listen on ${bracketed(host)}:${port}${which}: ${why}`, { host, port, code });
}

function bracketed(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
