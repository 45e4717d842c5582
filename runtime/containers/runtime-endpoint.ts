/**
 * Where a container runtime's API may listen, in the order the gateway tries
 * them: `containers.socket` from the config, `DOCKER_HOST`, the user's Podman
 * socket, the system Podman socket, the Docker socket. Podman serves both the
 * Docker-compatible API and its own libpod API on one socket.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export type Endpoint = { kind: 'unix'; path: string; source: string } | { kind: 'tcp'; host: string; port: number; source: string };

export function endpointCandidates(configured: string | undefined, env: NodeJS.ProcessEnv = process.env): Endpoint[] {
  const out: Endpoint[] = [];
  if (configured) out.push(parseEndpoint(configured, 'containers.socket'));
  if (env.DOCKER_HOST) out.push(parseEndpoint(env.DOCKER_HOST, 'DOCKER_HOST'));
  if (env.XDG_RUNTIME_DIR) out.push({ kind: 'unix', path: join(env.XDG_RUNTIME_DIR, 'podman', 'podman.sock'), source: 'XDG_RUNTIME_DIR' });
  out.push({ kind: 'unix', path: '/run/podman/podman.sock', source: 'system Podman' });
  out.push({ kind: 'unix', path: '/var/run/docker.sock', source: 'Docker' });
  return out;
}

/** A socket path, `unix:///path` or `tcp://host:port` (no TLS: a local daemon). */
export function parseEndpoint(text: string, source: string): Endpoint {
  if (text.startsWith('tcp://') || text.startsWith('http://')) {
    const url = new URL(text.replace(/^tcp:/, 'http:'));
    return { kind: 'tcp', host: url.hostname, port: Number(url.port || 2375), source };
  }
  return { kind: 'unix', path: text.replace(/^unix:\/\//, ''), source };
}

export function describeEndpoint(e: Endpoint): string {
  return e.kind === 'unix' ? `unix://${e.path}` : `tcp://${e.host}:${e.port}`;
}

/** A unix socket that does not exist cannot answer: skip it without a connection attempt. */
export function endpointPresent(e: Endpoint): boolean {
  return e.kind === 'tcp' || existsSync(e.path);
}

/** Connection options for dockerode and docker-modem. */
export function modemOptions(e: Endpoint): { socketPath: string } | { host: string; port: number; protocol: 'http' } {
  return e.kind === 'unix' ? { socketPath: e.path } : { host: e.host, port: e.port, protocol: 'http' };
}

/**
 * How long the first request to a daemon may take before the endpoint counts
 * as not answering. Generous: a busy Podman service on a loaded machine can
 * take seconds, and a false "no runtime" would run backends as bare processes.
 */
export const DAEMON_PING_TIMEOUT_MS = 10_000;

/** Runs a daemon's first request; a timeout says so instead of docker-modem's bare "socket hang up". */
export async function pingDaemon<T>(request: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await request();
  } catch (err) {
    if (Date.now() - started >= DAEMON_PING_TIMEOUT_MS) throw new Error(`no answer within ${DAEMON_PING_TIMEOUT_MS / 1000} s`, { cause: err });
    throw err;
  }
}
