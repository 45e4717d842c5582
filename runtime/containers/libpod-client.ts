/**
 * A small client of Podman's own (libpod) API for the `containers` and
 * `pods` client commands: list, inspect, logs, stop and remove containers
 * and pods. It talks to the first socket that answers a libpod ping, found
 * like the runtime (./runtime-endpoint.ts); a Docker socket does not speak
 * libpod and is passed over.
 */
import Modem from 'docker-modem';
import {
  describeEndpoint,
  endpointCandidates,
  endpointPresent,
  modemOptions,
  parseEndpoint,
  pingDaemon,
  DAEMON_PING_TIMEOUT_MS,
  type Endpoint,
} from './runtime-endpoint.js';
import { daemonMessage } from './errors.js';

/** Every path is under this prefix; Podman 4 and 5 both serve it. */
const API = '/v4.0.0/libpod';

export interface LibpodContainer {
  Id: string;
  Names: string[];
  Image: string;
  State: string;
  Status?: string;
  Created?: string | number;
  Labels?: Record<string, string> | null;
  PodName?: string;
}

export interface LibpodPod {
  Id: string;
  Name: string;
  Status: string;
  Created?: string;
  Containers?: { Id: string; Names: string; Status: string }[];
  Labels?: Record<string, string> | null;
}

/** A failed call: `status` is the HTTP status (404: no such container or pod). */
export class LibpodError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export type LibpodLookup = { client: LibpodClient } | { client?: undefined; reason: string };

export class LibpodClient {
  private constructor(
    private readonly modem: Modem,
    /** Where it is connected, e.g. `unix:///run/podman/podman.sock`. */
    readonly address: string,
  ) {}

  /** `socket` (a path or URL) when given, else the usual candidates, `configured` (containers.socket) first; never throws. */
  static async connect(socket?: string, env: NodeJS.ProcessEnv = process.env, configured?: string): Promise<LibpodLookup> {
    const candidates: Endpoint[] = socket
      ? [parseEndpoint(socket, '--socket')]
      : endpointCandidates(configured, { ...env, DOCKER_HOST: env.CONTAINER_HOST ?? env.DOCKER_HOST });
    const tried: string[] = [];
    for (const endpoint of candidates) {
      const address = describeEndpoint(endpoint);
      if (!endpointPresent(endpoint)) {
        tried.push(`${address} (absent)`);
        continue;
      }
      const client = new LibpodClient(new Modem({ ...modemOptions(endpoint), timeout: DAEMON_PING_TIMEOUT_MS }), address);
      try {
        await pingDaemon(() => client.call('GET', '/_ping'));
        return { client: new LibpodClient(new Modem(modemOptions(endpoint)), address) };
      } catch (err) {
        tried.push(`${address} (${(err as Error).message})`);
      }
    }
    return { reason: `no Podman API socket answered; tried ${tried.join(', ')}` };
  }

  listContainers(): Promise<LibpodContainer[]> {
    return this.call('GET', '/containers/json?', { all: true });
  }

  inspectContainer(name: string): Promise<Record<string, unknown>> {
    return this.call('GET', `/containers/${enc(name)}/json`);
  }

  /** The container's stderr, and its stdout when asked, as Docker's multiplexed stream (see demuxStream) unless it has a TTY. */
  async containerLogs(name: string, opts: { follow: boolean; stdout: boolean }): Promise<{ stream: NodeJS.ReadableStream; tty: boolean }> {
    const info = await this.inspectContainer(name);
    const tty = Boolean((info.Config as { Tty?: boolean } | undefined)?.Tty);
    const stream = await this.call<NodeJS.ReadableStream>(
      'GET',
      `/containers/${enc(name)}/logs?`,
      { stdout: opts.stdout, stderr: true, follow: opts.follow },
      true,
    );
    return { stream, tty };
  }

  demuxStream(stream: NodeJS.ReadableStream, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): void {
    this.modem.demuxStream(stream, stdout, stderr);
  }

  async stopContainer(name: string, timeoutS = 10): Promise<void> {
    await this.call('POST', `/containers/${enc(name)}/stop?`, { _query: { timeout: timeoutS }, _body: {} });
  }

  async removeContainer(name: string, force: boolean): Promise<void> {
    await this.call('DELETE', `/containers/${enc(name)}?`, { force });
  }

  listPods(): Promise<LibpodPod[]> {
    return this.call('GET', '/pods/json');
  }

  inspectPod(name: string): Promise<Record<string, unknown>> {
    return this.call('GET', `/pods/${enc(name)}/json`);
  }

  async stopPod(name: string): Promise<void> {
    await this.call('POST', `/pods/${enc(name)}/stop`);
  }

  async removePod(name: string, force: boolean): Promise<void> {
    await this.call('DELETE', `/pods/${enc(name)}?`, { force });
  }

  private call<T>(method: string, path: string, options?: Record<string, unknown>, isStream = false): Promise<T> {
    return new Promise((resolve, reject) => {
      this.modem.dial(
        {
          path: `${API}${path}`,
          method,
          options,
          isStream,
          // 304: already stopped; everything else in 2xx is success too.
          statusCodes: { 200: true, 201: true, 204: true, 304: true, 400: 'bad request', 404: 'no such object', 409: 'conflict', 500: 'server error' },
        },
        (err, data) => (err ? reject(new LibpodError(daemonMessage(err), (err as { statusCode?: number }).statusCode)) : resolve(data as T)),
      );
    });
  }
}

const enc = encodeURIComponent;
