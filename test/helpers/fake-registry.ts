/**
 * A local stand-in for an MCP registry (official API v0.1), the one thing
 * tests cannot reach here. It answers exactly like the real one:
 * - `GET /v0.1/servers?search&limit&cursor&version=latest`: name substring
 *   search (case-insensitive), pages of at most `limit` (default 30, above
 *   100 is a 400; `pageSize` caps it lower) with an opaque `metadata.nextCursor`;
 * - `GET /v0.1/servers/{name}/versions/{version|latest}` and `/versions`;
 * and can be made slow (`delayMs`), failing (`failWith`), garbled
 * (`garbage`) or token-protected (`token`, else 401). Every request is
 * recorded with its Authorization header.
 *
 * `sampleServers()` holds an entry of each kind: npm, pypi, oci and nuget
 * packages, a streamable-http and an sse remote, an entry with no packages,
 * and an older version.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { McpRegistryServerResponse } from '../../schemas/mcp-registry.js';

export interface FakeRegistryOptions {
  servers?: McpRegistryServerResponse[];
  /** The most entries one page holds, whatever `limit` asks (real registries cap pages too). */
  pageSize?: number;
  /** Delay before each answer, in ms. */
  delayMs?: number;
  /** Answer every request with this HTTP status. */
  failWith?: number;
  /** Answer 200 with a body that is not JSON. */
  garbage?: boolean;
  /** Require `Authorization: Bearer <token>`. */
  token?: string;
  /** Serve under this path prefix (e.g. `/registry`); the URL includes it. */
  prefix?: string;
}

export interface RecordedRequest {
  path: string;
  query: Record<string, string>;
  authorization?: string;
}

export interface FakeRegistry {
  url: string;
  requests: RecordedRequest[];
  /** Change behaviour between requests. */
  options: FakeRegistryOptions;
  close(): Promise<void>;
}

const OFFICIAL = 'io.modelcontextprotocol.registry/official';
const DEFAULT_LIMIT = 30;
const MAX_LIMIT = 100;

export async function startFakeRegistry(options: FakeRegistryOptions = {}): Promise<FakeRegistry> {
  const requests: RecordedRequest[] = [];
  const prefix = options.prefix ?? '';
  const server = createServer((req, res) => {
    void handle(req, res).catch((err: Error) => send(res, 500, { error: err.message }));
  });
  const fake: FakeRegistry = { url: '', requests, options, close: () => new Promise((r) => server.close(() => r())) };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams), authorization: req.headers.authorization });
    const opts = fake.options;
    if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
    if (opts.failWith) return send(res, opts.failWith, { error: 'failing on purpose' });
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) return send(res, 401, { error: 'Invalid or missing token' });
    if (opts.garbage) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('<html>not json</html>');
      return;
    }
    if (req.method !== 'GET' || !url.pathname.startsWith(`${prefix}/v0.1/servers`)) return send(res, 404, { error: 'Not found' });
    const rest = url.pathname.slice(`${prefix}/v0.1/servers`.length);
    const all = opts.servers ?? [];
    if (rest === '' || rest === '/') return list(res, all, url.searchParams, opts.pageSize);
    const m = /^\/([^/]+)\/versions(?:\/([^/]+))?$/.exec(rest);
    if (!m) return send(res, 404, { error: 'Not found' });
    const name = decodeURIComponent(m[1]);
    const versions = all.filter((s) => s.server.name === name);
    if (m[2] === undefined) return versions.length ? send(res, 200, { servers: versions, metadata: { count: versions.length } }) : notFound(res);
    const version = decodeURIComponent(m[2]);
    const hit = versions.find((s) => (version === 'latest' ? isLatest(s) : s.server.version === version));
    return hit ? send(res, 200, hit) : notFound(res);
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as { port: number }).port}${prefix}`;
  return fake;
}

function list(res: ServerResponse, all: McpRegistryServerResponse[], params: URLSearchParams, pageSize = MAX_LIMIT): void {
  const asked = params.has('limit') ? Number(params.get('limit')) : DEFAULT_LIMIT;
  if (!Number.isInteger(asked) || asked < 1 || asked > MAX_LIMIT) return send(res, 400, { error: `limit must be 1..${MAX_LIMIT}` });
  const limit = Math.min(asked, pageSize);
  let start = 0;
  const cursor = params.get('cursor');
  if (cursor) {
    const decoded = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
    if (!decoded) return send(res, 400, { error: 'invalid cursor' });
    start = Number(decoded[1]);
  }
  const search = params.get('search')?.toLowerCase();
  const matching = all.filter((s) => (!search || s.server.name.toLowerCase().includes(search)) && (params.get('version') !== 'latest' || isLatest(s)));
  const page = matching.slice(start, start + limit);
  const next = start + limit < matching.length ? Buffer.from(`offset:${start + limit}`).toString('base64url') : undefined;
  send(res, 200, { servers: page, metadata: { count: page.length, ...(next ? { nextCursor: next } : {}) } });
}

function isLatest(s: McpRegistryServerResponse): boolean {
  const official = s._meta?.[OFFICIAL] as { isLatest?: boolean } | undefined;
  return official?.isLatest !== false;
}

function notFound(res: ServerResponse): void {
  send(res, 404, { error: 'Server not found' });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const official = (isLatestVersion = true) => ({
  [OFFICIAL]: { status: 'active', publishedAt: '2025-09-01T10:00:00Z', updatedAt: '2025-09-01T10:00:00Z', isLatest: isLatestVersion },
});

/** One entry of each kind; `remoteUrl` is the streamable-http remote's URL (point it at a real MCP server). */
export function sampleServers(opts: { remoteUrl?: string } = {}): McpRegistryServerResponse[] {
  return [
    {
      server: {
        name: 'io.github.acme/weather-npm',
        description: 'Weather forecasts (npm package)',
        version: '1.2.0',
        packages: [
          {
            registryType: 'npm',
            registryBaseUrl: 'https://registry.npmjs.org',
            identifier: '@acme/weather-mcp',
            version: '1.2.0',
            transport: { type: 'stdio' },
            packageArguments: [
              { type: 'positional', value: 'serve' },
              { type: 'named', name: '--units', default: 'metric', isRequired: true },
              { type: 'positional', valueHint: 'city', description: 'needs a person' },
            ],
            environmentVariables: [
              { name: 'WEATHER_API_KEY', description: 'API key', isRequired: true, isSecret: true },
              { name: 'WEATHER_REGION', isRequired: true, default: 'eu' },
              { name: 'WEATHER_LOG', description: 'optional, has its own default', default: 'info' },
            ],
          },
        ],
      },
      _meta: { ...official(), 'io.modelcontextprotocol.registry/publisher-provided': { categories: ['weather', 'forecast'] } },
    },
    {
      server: { name: 'io.github.acme/weather-npm', description: 'An older version', version: '1.1.0' },
      _meta: official(false),
    },
    {
      server: {
        name: 'io.github.acme/weather-py',
        description: 'Weather (PyPI package)',
        version: '0.5.0',
        packages: [{ registryType: 'pypi', identifier: 'weather-mcp', version: '0.5.0', runtimeHint: 'uvx', transport: { type: 'stdio' } }],
      },
      _meta: { ...official(), categories: ['weather'] },
    },
    {
      server: {
        name: 'io.github.acme/weather-docker',
        description: 'Weather (OCI image)',
        version: '1.0.0',
        packages: [{ registryType: 'oci', identifier: 'docker.io/acme/weather-mcp', version: '1.0.0', transport: { type: 'stdio' } }],
      },
      _meta: official(),
    },
    {
      server: {
        name: 'io.github.acme/weather-dotnet',
        description: 'Weather (NuGet package)',
        version: '0.4.0',
        packages: [{ registryType: 'nuget', identifier: 'Acme.WeatherMcp', version: '0.4.0', runtimeHint: 'dnx', transport: { type: 'stdio' } }],
      },
      _meta: official(),
    },
    {
      server: {
        name: 'io.github.acme/weather-remote',
        description: 'Weather (hosted, streamable HTTP)',
        version: '2.0.0',
        remotes: [{ type: 'streamable-http', url: opts.remoteUrl ?? 'https://weather.example.com/mcp' }],
      },
      _meta: official(),
    },
    {
      server: {
        name: 'com.example/weather-sse',
        description: 'Weather (hosted, SSE)',
        version: '3.0.0',
        remotes: [
          {
            type: 'sse',
            url: 'https://mcp.example.com/sse',
            headers: [
              { name: 'X-Region', value: 'eu' },
              { name: 'X-Api-Key', isRequired: true },
            ],
          },
        ],
      },
      _meta: official(),
    },
    {
      server: { name: 'com.example/weather-empty', description: 'Nothing to run', version: '0.0.1' },
      _meta: official(),
    },
  ];
}

/** `count` plain entries named `io.github.bulk/<stem>-<i>` (to exercise pagination). */
export function manyServers(count: number, stem = 'tool'): McpRegistryServerResponse[] {
  return Array.from({ length: count }, (_, i) => ({
    server: {
      name: `io.github.bulk/${stem}-${String(i).padStart(3, '0')}`,
      description: `Bulk server ${i}`,
      version: '1.0.0',
      packages: [{ registryType: 'npm', identifier: `@bulk/${stem}-${i}`, version: '1.0.0', transport: { type: 'stdio' } }],
    },
    _meta: official(),
  }));
}
