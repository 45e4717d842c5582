/**
 * `gateway clean`: removes what the gateway created and no running gateway
 * uses. Selection is by label (`mcp-gateway.managed=true`, and for
 * containers an owner label too), never by name.
 * Containers whose owner (see ./owner.ts) still runs are kept; with `all`,
 * managed images (backend images before the bases they are built on) and
 * managed networks go too.
 */
import { hostname } from 'node:os';
import type { ContainerRuntime } from './container-runtime.js';
import { daemonMessage } from './errors.js';
import { BACKEND_LABEL, MANAGED_CONTAINER_FILTER, MANAGED_FILTER, OWNER_LABEL } from './labels.js';
import { formatOwner, ownerAlive, parseOwner, type Owner } from './owner.js';

export interface CleanReport {
  removed: { kind: 'container' | 'image' | 'network'; name: string; backend?: string }[];
  kept: { kind: 'container' | 'image' | 'network'; name: string; why: string }[];
  failed: { kind: 'container' | 'image' | 'network'; name: string; error: string }[];
}

export interface CleanOptions {
  /** Also images and networks. */
  all?: boolean;
  /** Only this owner's containers (a gateway removing its own at shutdown), alive or not. */
  owner?: Owner;
  /** Only the containers of the gateway process with this pid on this host (`gateway stop --force` after its SIGKILL). */
  ownerPid?: number;
}

export async function cleanManaged(runtime: ContainerRuntime, opts: CleanOptions = {}): Promise<CleanReport> {
  const report: CleanReport = { removed: [], kept: [], failed: [] };
  const docker = runtime.docker;
  const mine = opts.owner ? formatOwner(opts.owner) : undefined;

  for (const c of await docker.listContainers({ all: true, filters: MANAGED_CONTAINER_FILTER })) {
    const name = c.Names?.[0]?.replace(/^\//, '') ?? c.Id.slice(0, 12);
    const ownerLabel = c.Labels?.[OWNER_LABEL];
    if (opts.ownerPid !== undefined) {
      const owner = parseOwner(ownerLabel);
      if (owner?.pid !== opts.ownerPid || owner.host !== hostname()) continue;
    } else if (mine ? ownerLabel !== mine : ownerAlive(parseOwner(ownerLabel))) {
      if (!mine) report.kept.push({ kind: 'container', name, why: `in use by the running gateway ${ownerLabel}` });
      continue;
    }
    try {
      await docker.getContainer(c.Id).remove({ force: true });
      report.removed.push({ kind: 'container', name, backend: c.Labels?.[BACKEND_LABEL] });
    } catch (err) {
      if (!gone(err)) report.failed.push({ kind: 'container', name, error: daemonMessage(err) });
    }
  }
  if (!opts.all) return report;

  const images = await docker.listImages({ all: false, filters: MANAGED_FILTER });
  // Backend images first, bases last: an image other images are built on cannot go first.
  // (A backend image inherits its base's labels; only it has a backend label.)
  images.sort((a, b) => Number(!a.Labels?.[BACKEND_LABEL]) - Number(!b.Labels?.[BACKEND_LABEL]));
  const containers = await docker.listContainers({ all: true });
  const inUse = new Set(containers.map((c) => bareId(c.ImageID)));
  // Podman removes a network even while containers use it: check first.
  const networksInUse = new Set(containers.flatMap((c) => [c.HostConfig?.NetworkMode, ...Object.keys(c.NetworkSettings?.Networks ?? {})]));
  for (const img of images) {
    const name = img.RepoTags?.find((t) => t !== '<none>:<none>') ?? img.Id;
    if (inUse.has(bareId(img.Id))) {
      report.kept.push({ kind: 'image', name, why: 'used by a container' });
      continue;
    }
    try {
      // By id with force: an image tagged twice (a base also tagged by hand) goes as a whole.
      await docker.getImage(img.Id).remove({ force: true });
      report.removed.push({ kind: 'image', name, backend: img.Labels?.[BACKEND_LABEL] });
    } catch (err) {
      if (!gone(err)) report.failed.push({ kind: 'image', name, error: daemonMessage(err) });
    }
  }

  for (const net of await docker.listNetworks({ filters: MANAGED_FILTER })) {
    if (networksInUse.has(net.Name) || networksInUse.has(net.Id)) {
      report.kept.push({ kind: 'network', name: net.Name, why: 'used by a container' });
      continue;
    }
    try {
      await docker.getNetwork(net.Id).remove();
      report.removed.push({ kind: 'network', name: net.Name });
    } catch (err) {
      if (!gone(err)) report.failed.push({ kind: 'network', name: net.Name, error: daemonMessage(err) });
    }
  }
  return report;
}

/** Podman lists ids without the `sha256:` Docker puts in front. */
function bareId(id: string): string {
  return id.replace(/^sha256:/, '');
}

/** Already removed (by AutoRemove, or another clean) is not a failure. */
function gone(err: unknown): boolean {
  const status = (err as { statusCode?: number }).statusCode;
  return status === 404 || (status === 409 && /removal.*in progress|already in progress/i.test(daemonMessage(err)));
}
