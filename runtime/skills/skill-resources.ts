/**
 * The files of a skill folder as MCP resources: `skill://<name>/<relative
 * path>`. Hidden entries (a leading dot) and symbolic links are left out, so
 * nothing outside the folder can be served; a listing stops at MAX_FILES.
 * Contents are read when asked for (at most 16 MiB): text when the bytes are
 * UTF-8 without NUL, else a base64 blob.
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import mime from 'mime-types';
import type { Resource } from '@modelcontextprotocol/client';
import type { JsonObject } from '../routing/caller.js';
import { GatewayError, ResourceNotFoundError } from '../../schemas/errors.js';

export const SKILL_URI_SCHEME = 'skill://';
const MAX_FILES = 1000;
const MAX_DEPTH = 8;
const MAX_READ_BYTES = 16 * 1024 * 1024;

export interface SkillFile {
  /** The skill it belongs to. */
  skill: string;
  /** Path relative to the skill folder, `/`-separated. */
  relative: string;
  absolute: string;
  uri: string;
  mimeType: string;
  size: number;
  mtimeMs: number;
}

export function skillUri(skill: string, relative: string): string {
  return `${SKILL_URI_SCHEME}${encodeURIComponent(skill)}/${relative.split('/').map(encodeURIComponent).join('/')}`;
}

/** Every regular file of the folder, sorted, SKILL.md first. */
export async function listSkillFiles(skill: string, folder: string): Promise<SkillFile[]> {
  const files: SkillFile[] = [];
  const walk = async (dir: string, prefix: string, depth: number): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (files.length >= MAX_FILES) return;
      if (entry.name.startsWith('.')) continue;
      const absolute = join(dir, entry.name);
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory() && depth < MAX_DEPTH) await walk(absolute, relative, depth + 1);
      else if (entry.isFile()) {
        const st = await lstat(absolute);
        files.push({ skill, relative, absolute, uri: skillUri(skill, relative), mimeType: guessMimeType(relative), size: st.size, mtimeMs: st.mtimeMs });
      }
    }
  };
  await walk(folder, '', 0);
  return files.sort((a, b) => (a.relative === 'SKILL.md' ? -1 : b.relative === 'SKILL.md' ? 1 : 0));
}

export function guessMimeType(path: string): string {
  if (/\.md$/i.test(path)) return 'text/markdown';
  return mime.lookup(path) || (/^[^.]+$/.test(path.split('/').pop() ?? '') ? 'text/plain' : 'application/octet-stream');
}

export function toResource(skill: string, file: SkillFile, description?: string): Resource {
  return {
    uri: file.uri,
    name: `${skill}/${file.relative}`,
    mimeType: file.mimeType,
    size: file.size,
    ...(description ? { description } : {}),
  };
}

/** The `resources/read` result for one file. Refuses a file turned into a link since the scan, or one too big to hold in memory. */
export async function readSkillFile(file: SkillFile): Promise<JsonObject> {
  const st = await lstat(file.absolute);
  if (!st.isFile()) throw new ResourceNotFoundError(file.uri);
  if (st.size > MAX_READ_BYTES) {
    throw new GatewayError('payload_too_large', `${file.uri} is ${st.size} bytes; skill files above ${MAX_READ_BYTES} bytes are not served`, { uri: file.uri });
  }
  const bytes = await readFile(file.absolute);
  const text = decodeText(bytes);
  const item = text === undefined ? { blob: bytes.toString('base64') } : { text };
  return { contents: [{ uri: file.uri, mimeType: file.mimeType, ...item }] };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeText(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}
