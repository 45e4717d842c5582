/**
 * Makes sure a backend's image exists: reuses it when a image with the same
 * content tag is there, else builds it (with network, through the runtime's
 * build API) from the plan's recipe; an image named in `container.image` is
 * used as is, pulled if missing. The base image must be present or pullable.
 */
import { Readable } from 'node:stream';
import { pack } from 'tar-stream';
import type { ContainerRuntime } from './container-runtime.js';
import { ContainerError, daemonMessage, daemonStatus } from './errors.js';
import type { ImagePlan } from './image-plan.js';
import { sha256 } from './image-plan.js';
import { BACKEND_LABEL, PLAN_LABEL, managedLabels } from './labels.js';
import { followProgress } from './progress.js';

export interface EnsureImageOptions {
  /** Rebuild even when an image with the same tag exists, without the build cache. */
  noCache?: boolean;
  /** One line of pull or build output. */
  onProgress?: (line: string) => void;
}

export interface EnsuredImage {
  /** The tag (or `container.image`) to run. */
  image: string;
  id: string;
  /** Built just now (false: an existing image was reused). */
  built: boolean;
}

/** Characters of the content hash used as the image tag. */
const TAG_LENGTH = 16;

export async function ensureImage(runtime: ContainerRuntime, plan: ImagePlan, opts: EnsureImageOptions = {}): Promise<EnsuredImage> {
  if (!plan.build) {
    const image = plan.image!;
    const id = await presentOrPulled(runtime, image, opts.onProgress).catch((err: unknown) => {
      throw new ContainerError(plan.backend, 'ImageUnavailable', `image ${image} is not present and could not be pulled: ${daemonMessage(err)}`, err);
    });
    return { image, id, built: false };
  }
  const { base, hash, repository } = plan.build;
  const baseId = await presentOrPulled(runtime, base, opts.onProgress).catch((err: unknown) => {
    throw new ContainerError(plan.backend, 'BaseImageUnavailable', baseUnavailableMessage(plan, err), err);
  });
  // The base's id is part of the tag: a re-made base image rebuilds every image on it.
  const image = `${repository}:${sha256(`${hash}\n${baseId}`).slice(0, TAG_LENGTH)}`;
  const existing = await imageId(runtime, image);
  if (existing && !opts.noCache) return { image, id: existing, built: false };
  try {
    const stream = await runtime.docker.buildImage(contextTar(plan.build.recipe), {
      t: image,
      labels: managedLabels({ [BACKEND_LABEL]: plan.backend, [PLAN_LABEL]: hash }),
      // Packages are installed at build time, with network; the container runs without.
      networkmode: 'host',
      nocache: opts.noCache ?? false,
      pull: false,
      rm: true,
      forcerm: true,
    });
    await followProgress(runtime.docker, stream, opts.onProgress);
  } catch (err) {
    throw new ContainerError(plan.backend, 'ImageBuildFailed', `building image ${image} failed: ${daemonMessage(err)}`, err);
  }
  const id = await imageId(runtime, image);
  if (!id) throw new ContainerError(plan.backend, 'ImageBuildFailed', `building image ${image} reported success but the image is not there`);
  // A forced rebuild moved the tag: the image it replaced is now nameless. Not forced: one still in use stays.
  if (existing && existing !== id)
    await runtime.docker
      .getImage(existing)
      .remove()
      .catch(() => undefined);
  return { image, id, built: true };
}

/** The image's id, or undefined when the runtime has no such image. */
export async function imageId(runtime: ContainerRuntime, ref: string): Promise<string | undefined> {
  try {
    return (await runtime.docker.getImage(ref).inspect()).Id;
  } catch (err) {
    if (daemonStatus(err) === 404) return undefined;
    throw err;
  }
}

async function presentOrPulled(runtime: ContainerRuntime, ref: string, onProgress?: (line: string) => void): Promise<string> {
  const present = await imageId(runtime, ref);
  if (present) return present;
  const stream = (await runtime.docker.pull(ref)) as NodeJS.ReadableStream;
  await followProgress(runtime.docker, stream, onProgress);
  const pulled = await imageId(runtime, ref);
  if (!pulled) throw new Error(`pull of ${ref} finished but the image is not there`);
  return pulled;
}

function baseUnavailableMessage(plan: ImagePlan, err: unknown): string {
  const base = plan.build!.base;
  const hint =
    plan.kind === 'node'
      ? `on a host without registry access, make it from this host's Node.js with \`gateway build --base-from-host\``
      : `pull or import it, or set containers.base_images.${plan.kind} to an image that is present`;
  return `base image ${base} is neither present nor pullable (${firstLine(daemonMessage(err))}); ${hint}`;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!;
}

/** A build context holding only the recipe: nothing from the host is copied into the image. */
function contextTar(recipe: string): Readable {
  const tar = pack();
  tar.entry({ name: 'Dockerfile', mode: 0o644 }, recipe);
  tar.finalize();
  return Readable.from(tar);
}
