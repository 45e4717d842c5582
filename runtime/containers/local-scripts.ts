/**
 * A backend whose arguments name a file on this host (`node server.js`,
 * `python tool.py`) runs that file from a read-only bind mount at the same
 * path, so relative paths keep working and the image never holds a copy.
 *
 * What is mounted is what the script needs to run, not just the file: for a
 * file inside `node_modules`, that whole `node_modules` folder (its
 * dependencies are hoisted there); otherwise the nearest folder holding a
 * package.json or pyproject.toml (the script's project, with its own
 * dependencies); otherwise the script's folder.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';

export interface ReadOnlyMount {
  /** Host path, mounted at the same path in the container. */
  path: string;
  /** The argument that caused it, for messages. */
  for: string;
}

const PROJECT_MARKERS = ['package.json', 'pyproject.toml'];

/** Mounts for every argument that names an existing file; duplicates and nested mounts are merged. */
export function localScriptMounts(args: readonly string[], cwd: string): ReadOnlyMount[] {
  const mounts: ReadOnlyMount[] = [];
  for (const arg of args) {
    if (arg.startsWith('-') || arg.includes('\n')) continue;
    const file = isAbsolute(arg) ? arg : resolve(cwd, arg);
    if (!isFile(file)) continue;
    const root = mountRoot(file);
    // Never the whole file system over the container's root.
    mounts.push({ path: root === dirname(root) ? file : root, for: arg });
  }
  return mergeNested(mounts);
}

function mountRoot(file: string): string {
  const parts = file.split(sep);
  const nm = parts.indexOf('node_modules');
  if (nm > 0) return parts.slice(0, nm + 1).join(sep);
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (PROJECT_MARKERS.some((m) => existsSync(join(dir, m)))) return dir;
    if (dirname(dir) === dir) return dirname(file);
  }
}

function mergeNested(mounts: ReadOnlyMount[]): ReadOnlyMount[] {
  const sorted = [...mounts].sort((a, b) => a.path.length - b.path.length);
  const kept: ReadOnlyMount[] = [];
  for (const m of sorted) {
    if (!kept.some((k) => m.path === k.path || m.path.startsWith(k.path + sep))) kept.push(m);
  }
  return kept;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
