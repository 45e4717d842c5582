/**
 * The one object the controller needs for containers: it finds the runtime
 * (once, at start-up), decides per stdio backend whether it runs in a
 * container, makes sure its image exists, and creates the MCP transport that
 * runs it. Everything it creates is labelled with this gateway as owner.
 *
 * Policy (`containers.enabled`, overridden per backend by `container.enabled`):
 * - `auto`: a container when a runtime answers, else a bare process with a
 *   warning; also a bare process when the base image can be neither found
 *   nor pulled (the warning names `gateway build --base-from-host`);
 * - `true`: fail closed, the backend fails with the reason, never a bare process;
 * - `false`: always a bare process.
 */
import { randomBytes } from 'node:crypto';
import type { BackendSpec, StdioBackendSpec } from '../../schemas/config.js';
import { connectRuntime, type ContainerRuntime, type RuntimeLookup } from './container-runtime.js';
import { ContainerStdioTransport } from './container-stdio-transport.js';
import { cleanManaged, type CleanReport } from './cleanup.js';
import { ContainerError } from './errors.js';
import { hardenedCreateOptions, resolveLimits } from './hardening.js';
import { planImage, repositoryName, type ContainersConfig, type ImagePlan } from './image-plan.js';
import { ensureImage, type EnsuredImage, type EnsureImageOptions } from './image-store.js';
import { BACKEND_LABEL, OWNER_LABEL, PLAN_LABEL, managedLabels } from './labels.js';
import { currentOwner, formatOwner, type Owner } from './owner.js';
import { ensureBridgeNetwork } from './bridge-network.js';

export type ContainerPolicy = 'auto' | 'required' | 'off';

export type Placement =
  /** Run in a container; `policy` says whether a bare process is an acceptable fallback. */
  | { mode: 'container'; plan: ImagePlan; policy: 'auto' | 'required' }
  /** Run as a bare process; `warn` when containers were wanted (auto) but cannot be had. */
  | { mode: 'process'; reason: string; warn: boolean }
  /** Containers are required and there is no runtime: the backend fails with this error. */
  | { mode: 'failed'; error: ContainerError };

export interface ManagerOptions {
  env?: NodeJS.ProcessEnv;
  /** Where relative script paths in `args` and `cwd` are resolved (default: the process's). */
  cwd?: string;
}

export class ContainerManager {
  /** Who this gateway is, in the owner label of its containers. */
  readonly owner: Owner = currentOwner();

  private constructor(
    private containers: ContainersConfig,
    /** The runtime that answered, if any. */
    readonly runtime: ContainerRuntime | undefined,
    /** Why there is no runtime (which sockets were tried), when there is none. */
    readonly unavailableReason: string | undefined,
    private readonly cwd: string,
  ) {}

  /**
   * Finds the runtime (see ./runtime-endpoint.ts for the order); never
   * throws. It looks even when `containers.enabled` is false: a backend's
   * own `container.enabled: true` still wants one.
   */
  static async detect(containers: ContainersConfig, opts: ManagerOptions = {}): Promise<ContainerManager> {
    return ContainerManager.create(containers, await connectRuntime(containers.socket, opts.env ?? process.env), opts);
  }

  /** With a runtime lookup made elsewhere (e.g. a test's own socket). */
  static create(containers: ContainersConfig, lookup: RuntimeLookup, opts: ManagerOptions = {}): ContainerManager {
    return new ContainerManager(containers, lookup.runtime, lookup.runtime ? undefined : lookup.reason, opts.cwd ?? process.cwd());
  }

  /** `{ name, address, version }` of the runtime, for logs and status. */
  get runtimeSummary(): { name: string; address: string; version: string } | null {
    const r = this.runtime;
    return r ? { name: r.name, address: r.address, version: r.version } : null;
  }

  /** Limits and base images may change on reload; the runtime found at start-up stays. */
  updateConfig(containers: ContainersConfig): void {
    this.containers = containers;
  }

  policy(spec: StdioBackendSpec): ContainerPolicy {
    const enabled = spec.container?.enabled ?? this.containers.enabled;
    return enabled === 'auto' ? 'auto' : enabled ? 'required' : 'off';
  }

  placement(name: string, spec: StdioBackendSpec): Placement {
    const policy = this.policy(spec);
    if (policy === 'off') return { mode: 'process', reason: 'containers are disabled for this backend', warn: false };
    if (!this.runtime) {
      const reason = this.unavailableReason ?? 'no container runtime';
      if (policy === 'required') {
        return { mode: 'failed', error: new ContainerError(name, 'RuntimeUnavailable', `a container is required but ${reason}`) };
      }
      return { mode: 'process', reason: `running as a bare process: ${reason}`, warn: true };
    }
    return { mode: 'container', plan: planImage(name, spec, this.containers, this.cwd), policy };
  }

  /**
   * The one warning to log at start-up when containers are wanted (`auto`)
   * but no runtime answered, naming the backends that run bare; else undefined.
   */
  startupWarning(backends: Record<string, BackendSpec>): string | undefined {
    if (this.runtime) return undefined;
    const bare = Object.entries(backends)
      .filter((e): e is [string, StdioBackendSpec] => e[1].type === 'stdio' && e[1].enabled !== false)
      .filter(([, spec]) => this.policy(spec) === 'auto')
      .map(([name]) => name);
    if (bare.length === 0) return undefined;
    return `${this.unavailableReason}: stdio backends ${bare.join(', ')} run as bare processes with your full rights. Start Podman or Docker (or set containers.socket), or set containers.enabled: false to run them bare without this warning.`;
  }

  /** Reuses the image when its content tag exists, else builds (or pulls) it. */
  ensureImage(plan: ImagePlan, opts: EnsureImageOptions = {}): Promise<EnsuredImage> {
    return ensureImage(this.requireRuntime(plan.backend), plan, opts);
  }

  /**
   * Whether a failure to get the image may fall back to a bare process:
   * only under `auto`, and only for a base image that is not to be had
   * (any other failure is the backend's own and is reported as such).
   * Returns the warning to log, or undefined to fail.
   */
  fallbackReason(placement: Placement, err: unknown): string | undefined {
    if (placement.mode !== 'container' || placement.policy !== 'auto') return undefined;
    if (!(err instanceof ContainerError) || err.reason !== 'BaseImageUnavailable') return undefined;
    return `running as a bare process: ${err.message}`;
  }

  /** The transport that creates, attaches and starts the hardened container on `start()`. */
  createTransport(name: string, spec: StdioBackendSpec, plan: ImagePlan, image: EnsuredImage): ContainerStdioTransport {
    const runtime = this.requireRuntime(name);
    const limits = resolveLimits(spec, this.containers);
    const labels = managedLabels({ [BACKEND_LABEL]: name, [OWNER_LABEL]: formatOwner(this.owner) });
    if (plan.build) labels[PLAN_LABEL] = plan.build.hash;
    const create = hardenedCreateOptions({
      name: `mcp-gateway-${repositoryName(name)}-${randomBytes(4).toString('hex')}`,
      image: image.image,
      plan,
      limits,
      env: spec.env ?? {},
      labels,
    });
    const prepare = limits.network === 'bridge' ? () => ensureBridgeNetwork(runtime) : undefined;
    return new ContainerStdioTransport(runtime, name, create, prepare);
  }

  /** Removes every container this gateway created (a safety net at shutdown; transports remove their own on close). */
  async removeOwnContainers(): Promise<CleanReport | undefined> {
    return this.runtime ? cleanManaged(this.runtime, { owner: this.owner }) : undefined;
  }

  private requireRuntime(backend: string): ContainerRuntime {
    if (!this.runtime) throw new ContainerError(backend, 'RuntimeUnavailable', this.unavailableReason ?? 'no container runtime');
    return this.runtime;
  }
}

export type { EnsuredImage, ImagePlan };
