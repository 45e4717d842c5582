/**
 * `gateway build --base-from-host`: turns this host's Node.js (see
 * ./host-rootfs.ts) into an image through the runtime's import API and tags
 * it as the configured Node base, for hosts that reach no image registry.
 * The image is labelled with the Node version it holds; an import with the
 * same version is skipped unless forced.
 */
import { createReadStream, lstatSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { Readable } from 'node:stream';
import { pack, type Pack } from 'tar-stream';
import type { ContainerRuntime } from './container-runtime.js';
import { collectHostRootfs, type HostRootfs, type RootfsEntry } from './host-rootfs.js';
import { BASE_SOURCE_LABEL, managedLabels } from './labels.js';
import { followProgress } from './progress.js';

export interface BaseFromHostResult {
  image: string;
  id: string;
  /** False when an image made from the same Node version was already there. */
  imported: boolean;
  source: string;
  rootfs: HostRootfs['summary'];
}

export async function buildBaseFromHost(
  runtime: ContainerRuntime,
  image: string,
  opts: { force?: boolean; onProgress?: (line: string) => void } = {},
): Promise<BaseFromHostResult> {
  const rootfs = await collectHostRootfs();
  const source = `host-node ${rootfs.nodeVersion}`;
  if (!opts.force) {
    const existing = await runtime.docker
      .getImage(image)
      .inspect()
      .catch(() => undefined);
    if (existing?.Config?.Labels?.[BASE_SOURCE_LABEL] === source) {
      return { image, id: existing.Id, imported: false, source, rootfs: rootfs.summary };
    }
  }
  const { repo, tag } = splitReference(image);
  const labels = managedLabels({ [BASE_SOURCE_LABEL]: source });
  const changes = [
    ...Object.entries(rootfs.env).map(([k, v]) => `ENV ${k}=${v}`),
    ...Object.entries(labels).map(([k, v]) => `LABEL ${k}=${JSON.stringify(v)}`),
    'CMD ["node"]',
  ];
  // Imported without a name, then tagged by id: Podman ignores the import's `tag` (it names the image `:latest`).
  const stream = await runtime.docker.importImage(Readable.from(tarOf(rootfs.entries)), { changes, message: `mcp-gateway: ${source}` });
  const { imageId } = await followProgress(runtime.docker, stream, opts.onProgress);
  if (!imageId) throw new Error('the runtime did not say which image the import made');
  await runtime.docker.getImage(imageId).tag({ repo, tag });
  const id = (await runtime.docker.getImage(image).inspect()).Id;
  return { image, id, imported: true, source, rootfs: rootfs.summary };
}

/** `registry/path/name:tag` → repo and tag (default `latest`); a digest cannot be a target. */
export function splitReference(ref: string): { repo: string; tag: string } {
  if (ref.includes('@')) throw new Error(`cannot tag an image as ${ref}: a digest reference names existing content`);
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  return colon > slash ? { repo: ref.slice(0, colon), tag: ref.slice(colon + 1) } : { repo: ref, tag: 'latest' };
}

/** Streams the entries as a tar (parent folders first, then files in order). */
function tarOf(entries: RootfsEntry[]): Pack {
  const tar = pack();
  void (async () => {
    const dirs = new Set<string>();
    const ensureParents = (path: string) => {
      const parts = posix.dirname(path).split('/').filter(Boolean);
      for (let i = 1; i <= parts.length; i++) {
        const dir = parts.slice(0, i).join('/');
        if (dirs.has(dir)) continue;
        dirs.add(dir);
        tar.entry({ name: `${dir}/`, type: 'directory', mode: 0o755 });
      }
    };
    for (const e of entries) {
      const name = e.path.replace(/^\//, '');
      ensureParents(e.path);
      if (e.type === 'dir') {
        dirs.add(name);
        tar.entry({ name: `${name}/`, type: 'directory', mode: e.mode });
      } else if (e.type === 'symlink') tar.entry({ name, type: 'symlink', linkname: e.target });
      else if (e.type === 'text') tar.entry({ name, mode: e.mode }, e.text);
      else if (e.type === 'file') await addFile(tar, name, e.from, e.mode);
      else await addTree(tar, name, e.from, dirs);
    }
    tar.finalize();
  })().catch((err: unknown) => tar.destroy(err as Error));
  return tar;
}

async function addTree(tar: Pack, name: string, from: string, dirs: Set<string>): Promise<void> {
  dirs.add(name);
  tar.entry({ name: `${name}/`, type: 'directory', mode: 0o755 });
  for (const child of readdirSync(from).sort()) {
    const source = join(from, child);
    const target = `${name}/${child}`;
    const st = lstatSync(source);
    if (st.isDirectory()) await addTree(tar, target, source, dirs);
    else if (st.isSymbolicLink()) tar.entry({ name: target, type: 'symlink', linkname: readlinkSync(source) });
    else if (st.isFile()) await addFile(tar, target, source, st.mode & 0o777);
  }
}

/** A file's content (following symlinks, so a library's soname link becomes the library). */
function addFile(tar: Pack, name: string, from: string, mode?: number): Promise<void> {
  const st = statSync(from);
  return new Promise((resolve, reject) => {
    const sink = tar.entry({ name, size: st.size, mode: mode ?? st.mode & 0o777 }, (err) => (err ? reject(err) : resolve()));
    createReadStream(from).on('error', reject).pipe(sink);
  });
}
