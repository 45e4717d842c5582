/**
 * The container steps of a stdio backend, taken before it connects: decide
 * whether it runs in a hardened container, make sure its image exists (one
 * step of its own, condition `ImageReady`), and hand the connect step the
 * placement that starts the container (condition `ContainerRunning` once up).
 *
 * Under `containers.enabled: auto` a backend with no runtime, or whose base
 * image can be neither found nor pulled, runs as a bare process; the
 * `ContainerRunning` condition (reason `BareProcess`) says so and why. Under
 * `true` it fails instead, never falling back.
 *
 * What it observes goes to the reconciler's status writer as transitions
 * (`record`); it writes no status of its own.
 */
import type { StdioBackendSpec } from '../../schemas/config.js';
import type { ContainerFailure } from '../../schemas/conditions.js';
import type { ContainerManager, EnsuredImage } from '../../runtime/containers/container-manager.js';
import { ContainerError } from '../../runtime/containers/errors.js';
import { AS_PROCESS, type Placement } from '../../runtime/transports/create-backend-transport.js';
import type { StatusView } from '../status/status-store.js';
import { bareProcess, imageFailed, imagePreparing, imageReady, type Transition } from '../status/transitions.js';

/** What the container steps remember of a backend between reconciles. */
export interface ContainerMemory {
  /** The image ensured for the current plan (its identity: the content hash, or `container.image`). */
  image?: { key: string; image: EnsuredImage };
  /** The plan whose base image was unavailable under `auto`: it runs bare until the plan changes. */
  bareFor?: string;
}

export type ContainerManagerPort = Pick<ContainerManager, 'placement' | 'ensureImage' | 'fallbackReason' | 'createTransport'>;

export type ContainerStepResult =
  /** Connect now, placed here (a bare process, or the container whose image is ready). */
  | { next: 'connect'; placement: Placement }
  /** A step was taken (the image): look again at once. */
  | { next: 'requeue' }
  /** It cannot run: the caller records it as a failure with this reason and backs off. */
  | { next: 'fail'; reason: ContainerFailure; message: string };

export interface ContainerStepDeps {
  containers: ContainerManagerPort;
  view: StatusView;
  /** The reconciler's status writer, for this backend. */
  record(transition: Transition): void;
}

export async function containerStep(d: ContainerStepDeps, name: string, spec: StdioBackendSpec, memory: ContainerMemory): Promise<ContainerStepResult> {
  const placement = d.containers.placement(name, spec);
  if (placement.mode === 'failed') return { next: 'fail', reason: placement.error.reason, message: placement.error.message };
  if (placement.mode === 'process') {
    // No runtime: the gateway warned once at start-up for every such backend; the record says it here.
    if (placement.warn) recordBare(d, name, placement.reason, false);
    return { next: 'connect', placement: AS_PROCESS };
  }
  const key = placement.plan.build?.hash ?? placement.plan.image ?? '';
  if (memory.bareFor === key) return { next: 'connect', placement: AS_PROCESS };
  if (memory.image?.key !== key) {
    d.record(imagePreparing(name));
    try {
      const image = await d.containers.ensureImage(placement.plan);
      memory.image = { key, image };
      memory.bareFor = undefined;
      d.record(imageReady(name, image.image, image.built));
    } catch (err) {
      const fallback = d.containers.fallbackReason(placement, err);
      const reason = err instanceof ContainerError ? err.reason : 'ImageBuildFailed';
      const message = (err as Error).message;
      d.record(imageFailed(reason, message));
      if (!fallback) return { next: 'fail', reason, message };
      memory.bareFor = key;
      recordBare(d, name, fallback, true);
    }
    return { next: 'requeue' };
  }
  return { next: 'connect', placement: { mode: 'container', containers: d.containers, plan: placement.plan, image: memory.image.image } };
}

/** After a failed connect in a container: the image may be gone (a `gateway clean --all`): check it again next time. */
export function forgetImage(memory: ContainerMemory): void {
  memory.image = undefined;
}

function recordBare(d: ContainerStepDeps, name: string, why: string, announce: boolean): void {
  const known = d.view.get(name)?.conditions.find((c) => c.type === 'ContainerRunning');
  if (known?.reason === 'BareProcess' && known.message === why) return;
  d.record(bareProcess(name, why, announce));
}
