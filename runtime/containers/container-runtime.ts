/**
 * A connection to a container runtime that answered: dockerode over the
 * first endpoint (see ./runtime-endpoint.ts) that responds to a ping, and
 * which runtime it is. Podman and Docker both work through the same
 * Docker-compatible API; only the libpod client needs Podman.
 */
import Docker from 'dockerode';
import { describeEndpoint, endpointCandidates, endpointPresent, modemOptions, pingDaemon, DAEMON_PING_TIMEOUT_MS, type Endpoint } from './runtime-endpoint.js';
import { daemonMessage } from './errors.js';

export type RuntimeName = 'podman' | 'docker';

export interface ContainerRuntime {
  docker: Docker;
  endpoint: Endpoint;
  /** `unix:///run/podman/podman.sock` or `tcp://host:port`. */
  address: string;
  name: RuntimeName;
  version: string;
}

export type RuntimeLookup = { runtime: ContainerRuntime } | { runtime?: undefined; reason: string };

/** Tries each candidate endpoint in order; never throws. */
export async function connectRuntime(configured: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<RuntimeLookup> {
  const tried: string[] = [];
  for (const endpoint of endpointCandidates(configured, env)) {
    const address = describeEndpoint(endpoint);
    if (!endpointPresent(endpoint)) {
      tried.push(`${address} (absent)`);
      continue;
    }
    try {
      return { runtime: await identify(endpoint) };
    } catch (err) {
      tried.push(`${address} (${daemonMessage(err)})`);
    }
  }
  return { reason: `no container runtime answered; tried ${tried.join(', ')}` };
}

/** Connects to one endpoint; throws when it does not answer. */
export async function identify(endpoint: Endpoint): Promise<ContainerRuntime> {
  const docker = new Docker({ ...modemOptions(endpoint), timeout: DAEMON_PING_TIMEOUT_MS });
  const version = await pingDaemon(() => docker.version());
  const podman = version.Components?.find((c) => c.Name === 'Podman Engine');
  return {
    // Builds and long waits must not be cut by the ping timeout.
    docker: new Docker(modemOptions(endpoint)),
    endpoint,
    address: describeEndpoint(endpoint),
    name: podman ? 'podman' : 'docker',
    version: podman?.Version ?? version.Version,
  };
}
