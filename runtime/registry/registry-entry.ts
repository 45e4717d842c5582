/**
 * A registry server (API v0.1) as the gateway shows it (spec 2.7) and as a
 * backend it can install:
 * - `transport` and `url` come from the first package's transport, else the
 *   first remote; a remote has an empty `command`;
 * - the launch command by package type: npm `npx -y <id>@<version>`, pypi
 *   `uvx <id>@<version>`, oci `docker run -i --rm <image>`, any other type
 *   its `runtimeHint` (if given) with `<id>@<version>`; fixed package
 *   arguments (those with a `value`, or a required one with a `default`) follow;
 * - `categories` from `_meta` (`categories` at its top level or inside one of
 *   its namespaced objects), else `[]`.
 */
import type { Static } from '@sinclair/typebox';
import type { RegistryServerSchema } from '../../schemas/api.js';
import type {
  McpRegistryArgument,
  McpRegistryPackage,
  McpRegistryServer,
  McpRegistryServerResponse,
  McpRegistryTransport,
} from '../../schemas/mcp-registry.js';
import { BACKEND_NAME_PATTERN } from '../../schemas/config.js';
import { GatewayError } from '../../schemas/errors.js';

/** A spec 2.7 registry server entry. */
export type RegistryEntry = Static<typeof RegistryServerSchema>;

interface Launch {
  command: string;
  args: string[];
}

export function toRegistryEntry(response: McpRegistryServerResponse): RegistryEntry {
  const { server } = response;
  const pkg = server.packages?.[0];
  const remote = server.remotes?.[0];
  const launch = pkg ? launchOf(pkg) : { command: '', args: [] };
  return {
    name: server.name,
    description: server.description ?? '',
    transport: pkg ? (pkg.transport?.type ?? 'stdio') : (remote?.type ?? ''),
    url: (pkg ? pkg.transport?.url : remote?.url) ?? '',
    command: launch.command,
    args: launch.args,
    version: server.version ?? pkg?.version ?? '',
    categories: categoriesOf(response._meta),
  };
}

export function launchOf(pkg: McpRegistryPackage): Launch {
  const at = pkg.version ? `${pkg.identifier}@${pkg.version}` : pkg.identifier;
  const fixed = fixedArguments(pkg.packageArguments);
  switch (pkg.registryType) {
    case 'npm':
      return { command: 'npx', args: ['-y', at, ...fixed] };
    case 'pypi':
      return { command: 'uvx', args: [at, ...fixed] };
    case 'oci':
      return { command: 'docker', args: ['run', '-i', '--rm', imageOf(pkg), ...fixed] };
    default:
      return pkg.runtimeHint ? { command: pkg.runtimeHint, args: [at, ...fixed] } : { command: '', args: [] };
  }
}

/** An image reference with a tag or digest is used as is; else the package version is its tag. */
function imageOf(pkg: McpRegistryPackage): string {
  const last = pkg.identifier.split('/').pop() ?? '';
  return last.includes(':') || last.includes('@') || !pkg.version ? pkg.identifier : `${pkg.identifier}:${pkg.version}`;
}

/** Arguments the entry fixes; ones that need a person's input (no value, or `{placeholders}`) are left out. */
function fixedArguments(args: McpRegistryArgument[] | undefined): string[] {
  const out: string[] = [];
  for (const arg of args ?? []) {
    const value = arg.value ?? (arg.isRequired ? arg.default : undefined);
    if (value === undefined || value.includes('{')) continue;
    if (arg.type === 'named' && arg.name) out.push(arg.name, value);
    else if (arg.type === 'positional') out.push(value);
  }
  return out;
}

function categoriesOf(meta: Record<string, unknown> | undefined): string[] {
  const isList = (v: unknown): v is string[] => Array.isArray(v) && v.every((c) => typeof c === 'string');
  if (!meta) return [];
  if (isList(meta.categories)) return meta.categories;
  for (const value of Object.values(meta)) {
    if (value && typeof value === 'object' && isList((value as Record<string, unknown>).categories)) return (value as { categories: string[] }).categories;
  }
  return [];
}

/** The `backends.<name>` value to write for an entry. */
export type InstallSpec =
  | { type: 'stdio'; command: string; args: string[]; env?: Record<string, string> }
  | { type: 'streamable-http' | 'sse'; url: string; headers?: Record<string, string> };

/**
 * What to install: the first package that runs over stdio with a known
 * launch command, else the first streamable-http or sse remote with a
 * concrete URL. Environment variables the package requires are written as
 * `${NAME}` (or `${NAME:-default}`), to be set where the gateway runs.
 */
export function installSpecOf(server: McpRegistryServer): InstallSpec {
  for (const pkg of server.packages ?? []) {
    if ((pkg.transport?.type ?? 'stdio') !== 'stdio') continue;
    const { command, args } = launchOf(pkg);
    if (!command) continue;
    const env: Record<string, string> = {};
    for (const v of pkg.environmentVariables ?? []) {
      if (v.value !== undefined && !v.value.includes('{')) env[v.name] = escapeEnv(v.value);
      else if (v.isRequired || v.isSecret) env[v.name] = v.default !== undefined ? `\${${v.name}:-${escapeEnv(v.default)}}` : `\${${v.name}}`;
    }
    return { type: 'stdio', command, args, ...(Object.keys(env).length > 0 ? { env } : {}) };
  }
  for (const remote of server.remotes ?? []) {
    if ((remote.type === 'streamable-http' || remote.type === 'sse') && remote.url && !remote.url.includes('{')) {
      const headers = fixedHeaders(remote);
      return { type: remote.type, url: remote.url, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
    }
  }
  throw new GatewayError(
    'registry_entry_not_installable',
    `Registry server '${server.name}' has no stdio package the gateway can launch (npm, pypi, oci, or one with a runtimeHint) and no streamable-http or sse remote with a fixed URL`,
    { server: server.name },
  );
}

function fixedHeaders(remote: McpRegistryTransport): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of remote.headers ?? []) if (h.value !== undefined && !h.value.includes('{')) out[h.name] = escapeEnv(h.value);
  return out;
}

/** A literal `${` in a value must not be expanded by the config loader. */
function escapeEnv(value: string): string {
  return value.replaceAll('${', '$${');
}

/** The last segment of the registry name, made a valid backend name (`io.github.acme/weather-tool` → `weather-tool`). */
export function defaultBackendName(serverName: string): string {
  const last = serverName.split('/').pop() ?? '';
  let name = last.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  if (name === '' || /^\d+$/.test(name)) name = `server-${name || 'entry'}`;
  if (!new RegExp(BACKEND_NAME_PATTERN).test(name)) throw new Error(`cannot derive a backend name from ${serverName}`);
  return name;
}
