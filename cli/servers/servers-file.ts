/**
 * The TUI's multi-server file (spec 2.1): `{ "servers": [{ name, url, token? }], "active": name }`,
 * by default `<config>/servers.json` (runtime/state-dir.ts `configDir`). It can
 * hold management tokens, so it is written with mode 0600 (atomically: a crash
 * mid-write leaves the old file) in a folder of mode 0700.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { configDir } from '../../runtime/state-dir.js';
import { normaliseServerUrl } from '../client/server-url.js';

const ServerEntrySchema = Type.Object({
  name: Type.String({ minLength: 1 }),
  url: Type.String({ minLength: 1 }),
  token: Type.Optional(Type.String()),
});
const ServersFileSchema = Type.Object({
  servers: Type.Array(ServerEntrySchema),
  active: Type.Optional(Type.String()),
});

export type ServerEntry = Static<typeof ServerEntrySchema>;
export type ServersFile = Static<typeof ServersFileSchema>;

/** A servers file that cannot be read or does not hold the expected shape. */
export class ServersFileError extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`Servers file ${path}: ${problem}`);
    this.name = 'ServersFileError';
  }
}

export function defaultServersFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'servers.json');
}

/** The file's content; an absent file is an empty list. */
export function readServersFile(path: string): ServersFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { servers: [] };
    throw new ServersFileError(path, (err as Error).message);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ServersFileError(path, `not JSON (${(err as Error).message})`);
  }
  const problem = Value.Errors(ServersFileSchema, value).First();
  if (problem) throw new ServersFileError(path, `${problem.path || '/'} ${problem.message}`);
  const file = value as ServersFile;
  const names = new Set<string>();
  for (const s of file.servers) {
    if (names.has(s.name)) throw new ServersFileError(path, `two servers are named "${s.name}"`);
    names.add(s.name);
  }
  return file;
}

export function writeServersFile(path: string, file: ServersFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileAtomic.sync(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
}

/** The file with `entry` added; its URL is normalised. Throws on a taken name or a bad URL. */
export function withServer(file: ServersFile, entry: ServerEntry): ServersFile {
  if (!entry.name.trim() || /\s/.test(entry.name)) throw new Error(`Invalid server name "${entry.name}": no spaces, not empty`);
  if (file.servers.some((s) => s.name === entry.name)) throw new Error(`A server named "${entry.name}" is already in the file`);
  const added: ServerEntry = { name: entry.name, url: normaliseServerUrl(entry.url), ...(entry.token ? { token: entry.token } : {}) };
  return { ...file, servers: [...file.servers, added] };
}

/** The file without the server `name` (and without `active` when it named that server). */
export function withoutServer(file: ServersFile, name: string): ServersFile {
  if (!file.servers.some((s) => s.name === name)) throw new Error(`No server named "${name}" in the file`);
  const servers = file.servers.filter((s) => s.name !== name);
  return file.active === name ? { servers } : { ...file, servers };
}

export function withActive(file: ServersFile, name: string): ServersFile {
  if (!file.servers.some((s) => s.name === name)) throw new Error(`No server named "${name}" in the file`);
  return { ...file, active: name };
}
