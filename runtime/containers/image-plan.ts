/**
 * The plan of one stdio backend's container: which image (built from a
 * recipe, or `container.image` as is) and how to run the command in it.
 * Pure: it reads the config and looks at the host's files, nothing else.
 *
 * The image tag is a content hash of everything that shapes the image (base,
 * command, args, packages, recipe; the base's image id is added when the
 * image is ensured, see ./image-store.ts), so an unchanged backend never
 * rebuilds and a changed one always does.
 */
import { createHash } from 'node:crypto';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { GatewayConfig, StdioBackendSpec } from '../../schemas/config.js';
import { commandName, commandPackages, imageKind, type ImageKind } from './command-kind.js';
import { buildRecipe, CONTAINER_HOME, PACKAGE_DIR, RECIPE_VERSION } from './build-recipe.js';
import { localScriptMounts, type ReadOnlyMount } from './local-scripts.js';

export type ContainersConfig = GatewayConfig['containers'];

export interface ImageBuild {
  base: string;
  recipe: string;
  packages: string[];
  /** sha256 (hex) of the plan's inputs. */
  hash: string;
  /** Repository part of the tag, e.g. `localhost/mcp-gateway/memory`. */
  repository: string;
}

export interface ImagePlan {
  backend: string;
  kind: ImageKind;
  /** Present when the gateway builds the image; absent for `container.image`. */
  build?: ImageBuild;
  /** `container.image` when given. */
  image?: string;
  run: {
    cmd: string[];
    workdir: string;
    /** Non-secret variables the runtime needs; the backend's own `env` is added at start. */
    env: Record<string, string>;
    mounts: ReadOnlyMount[];
  };
}

/**
 * `spec.cwd` is the backend's working directory on the host: the config
 * loader makes it absolute (the config file's folder by default), so the
 * container sees the files a bare process would. `cwd` only serves specs that
 * did not come from a config file.
 */
export function planImage(backend: string, spec: StdioBackendSpec, containers: ContainersConfig, cwd = process.cwd()): ImagePlan {
  const kind = imageKind(spec.command);
  const args = spec.args ?? [];
  const workdirOnHost = resolve(cwd, spec.cwd ?? '.');
  const mounts = localScriptMounts([...projectCommand(spec.command, kind, workdirOnHost), ...args], workdirOnHost);
  const fromCommand = commandPackages(spec.command, args);
  const extra = spec.container?.packages ?? [];
  const packages = [...fromCommand, ...extra];
  // Inside the image the tool is found on PATH: a host path such as /usr/bin/node would not exist there.
  const cmd = [kind === 'generic' ? spec.command : commandName(spec.command), ...args];
  const run = {
    cmd,
    workdir: mounts.length > 0 ? workdirOnHost : packages.length > 0 ? PACKAGE_DIR : CONTAINER_HOME,
    env: runEnv(kind, packages.length > 0),
    mounts,
  };
  if (spec.container?.image) return { backend, kind, image: spec.container.image, run };

  const base = containers.base_images[kind];
  const recipe = buildRecipe({ backend, kind, base, commandPackages: fromCommand, extraPackages: extra });
  const hash = sha256(JSON.stringify({ v: RECIPE_VERSION, base, kind, command: spec.command, args, packages, recipe }));
  return { backend, kind, build: { base, recipe, packages, hash, repository: `localhost/mcp-gateway/${repositoryName(backend)}` }, run };
}

/**
 * A generic command that is a file of the backend's own folder (`./server.sh`
 * beside the config) is mounted like a script argument; any other command
 * (`/bin/sh`, a tool on PATH) must come from the image: a system folder of
 * the host is never mounted over the container's.
 */
function projectCommand(command: string, kind: ImageKind, workdirOnHost: string): string[] {
  if (kind !== 'generic' || !isAbsolute(command) || dirname(workdirOnHost) === workdirOnHost) return [];
  const inside = relative(workdirOnHost, command);
  return inside !== '' && inside.split(sep)[0] !== '..' && !isAbsolute(inside) ? [command] : [];
}

function runEnv(kind: ImageKind, hasPackages: boolean): Record<string, string> {
  const env: Record<string, string> = { HOME: CONTAINER_HOME };
  if (kind === 'node') {
    // No network at run time: npm must not try the registry (it would hang on retries).
    Object.assign(env, { npm_config_offline: 'true', npm_config_update_notifier: 'false', npm_config_fund: 'false' });
    if (hasPackages) env.NODE_PATH = `${PACKAGE_DIR}/node_modules`;
  }
  if (kind === 'python') Object.assign(env, { UV_OFFLINE: '1', UV_CACHE_DIR: '/tmp/uv-cache', PYTHONDONTWRITEBYTECODE: '1' });
  return env;
}

/** A backend name as an image repository path component (lowercase; `.`, `_`, `-` only between letters and digits). */
export function repositoryName(backend: string): string {
  const name = backend
    .toLowerCase()
    .replace(/[^a-z0-9._-]/g, '-')
    .replace(/[._-]{2,}/g, '-')
    .replace(/^[._-]+|[._-]+$/g, '');
  return name || 'backend';
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
