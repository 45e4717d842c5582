/**
 * The hardened way every backend container runs, as create options for the
 * Docker-compatible API: read-only root file system, no capabilities,
 * no-new-privileges, a non-root user, no network unless the backend opts in,
 * memory / CPU / pids limits, small tmpfs mounts for /tmp and $HOME,
 * explicit ulimits, an init process, removed when it stops. stdin and stdout
 * are attached: they are the MCP stdio transport.
 *
 * The backend's `env` (which may hold secrets) goes into the create call's
 * environment only: never an argv, a label or the image.
 */
import type { ContainerCreateOptions } from 'dockerode';
import type { StdioBackendSpec } from '../../schemas/config.js';
import { CONTAINER_HOME, CONTAINER_USER } from './build-recipe.js';
import type { ContainersConfig, ImagePlan } from './image-plan.js';
import { parseSize } from './size.js';

export interface ContainerLimits {
  memoryBytes: number;
  cpus: number;
  pids: number;
  network: 'none' | 'bridge';
}

/** Open files per process. */
export const NOFILE_LIMIT = 1024;
/**
 * Processes per user. RLIMIT_NPROC counts every process of the uid on the
 * host, not per container, so it is kept well above the per-container pids
 * limit (the cgroup limit that really bounds a container).
 */
export const NPROC_LIMIT = 4096;
export const TMP_SIZE = '64m';
export const HOME_SIZE = '32m';
/** The network the gateway creates for backends with `network: bridge`. */
export const BRIDGE_NETWORK = 'mcp-gateway';

/** A backend's `container` keys win over `containers.defaults`. */
export function resolveLimits(spec: StdioBackendSpec, containers: ContainersConfig): ContainerLimits {
  const own = spec.container ?? {};
  const d = containers.defaults;
  return {
    memoryBytes: parseSize(own.memory ?? d.memory),
    cpus: own.cpus ?? d.cpus,
    pids: own.pids ?? d.pids,
    network: own.network ?? d.network,
  };
}

export interface HardenedContainerInput {
  name: string;
  image: string;
  plan: ImagePlan;
  limits: ContainerLimits;
  /** The backend's own `env` from the config (resolved secrets included). */
  env: Record<string, string>;
  labels: Record<string, string>;
}

export function hardenedCreateOptions({ name, image, plan, limits, env, labels }: HardenedContainerInput): ContainerCreateOptions {
  const tmpfs = (size: string) => `rw,nosuid,nodev,size=${size},mode=1777`;
  return {
    name,
    Image: image,
    Cmd: plan.run.cmd,
    // The image's entrypoint must not wrap the command (a base like node:22 has a shell script there).
    Entrypoint: [],
    WorkingDir: plan.run.workdir,
    User: CONTAINER_USER,
    Env: Object.entries({ ...plan.run.env, ...env }).map(([k, v]) => `${k}=${v}`),
    Labels: labels,
    Tty: false,
    OpenStdin: true,
    // stdin closes when the gateway's attach ends: a stdio server exits on EOF.
    StdinOnce: true,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    HostConfig: {
      AutoRemove: true,
      Init: true,
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Privileged: false,
      IpcMode: 'private',
      NetworkMode: limits.network === 'none' ? 'none' : BRIDGE_NETWORK,
      Memory: limits.memoryBytes,
      // Equal to Memory: no swap on top of the limit.
      MemorySwap: limits.memoryBytes,
      NanoCpus: Math.round(limits.cpus * 1e9),
      PidsLimit: limits.pids,
      Ulimits: [
        { Name: 'nofile', Soft: NOFILE_LIMIT, Hard: NOFILE_LIMIT },
        { Name: 'nproc', Soft: NPROC_LIMIT, Hard: NPROC_LIMIT },
      ],
      Tmpfs: { '/tmp': tmpfs(TMP_SIZE), [CONTAINER_HOME]: tmpfs(HOME_SIZE) },
      Binds: plan.run.mounts.map((m) => `${m.path}:${m.path}:ro`),
    },
  };
}
