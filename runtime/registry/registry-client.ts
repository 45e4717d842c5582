/**
 * Searches and looks up MCP servers in the configured registries (official
 * API v0.1), tried in config order. A registry that fails, times out
 * (`timeout_s` for the whole search, every page included) or finds nothing
 * passes to the next. Each registry's `token` goes to that registry only, and
 * a redirect is refused when a token is set (it could carry the token to
 * another host). Search answers are cached per (registry, q, limit) for 5 minutes.
 */
import { LRUCache } from 'lru-cache';
import { Ajv } from 'ajv';
import type { Logger } from '../observability/logging/logger.js';
import { GatewayError } from '../../schemas/errors.js';
import {
  McpRegistryServerListSchema,
  McpRegistryServerResponseSchema,
  type McpRegistryServerList,
  type McpRegistryServerResponse,
} from '../../schemas/mcp-registry.js';
import { toRegistryEntry, type RegistryEntry } from './registry-entry.js';

export interface RegistrySettings {
  name: string;
  url: string;
  timeout_s?: number;
  token?: string;
}

export interface RegistrySearchResult {
  servers: RegistryEntry[];
  /** The registry that returned the results; '' when none found anything (or the named one when restricted). */
  registry: string;
  total: number;
}

export interface RegistryLookup {
  registry: string;
  server: McpRegistryServerResponse;
}

export const DEFAULT_REGISTRY_TIMEOUT_S = 10;
const CACHE_TTL_MS = 5 * 60 * 1000;
/** The API's own page size limit. */
const PAGE_MAX = 100;
/** A registry that keeps returning cursors is cut off here. */
const MAX_PAGES = 50;

const ajv = new Ajv({ strict: false, allErrors: false });
const validateList = ajv.compile<McpRegistryServerList>(McpRegistryServerListSchema);
const validateServer = ajv.compile<McpRegistryServerResponse>(McpRegistryServerResponseSchema);

/** A registry could not give an answer (network, timeout, HTTP error, malformed body). */
class RegistryFailure extends Error {}

export class RegistryClient {
  private readonly cache = new LRUCache<string, RegistryEntry[]>({ max: 500, ttl: CACHE_TTL_MS });

  constructor(
    /** Read per call: a config reload may change the list. */
    private readonly registries: () => RegistrySettings[],
    private readonly log: Logger,
  ) {}

  async search(q: string, limit: number, only?: string): Promise<RegistrySearchResult> {
    const targets = this.targets(only);
    const failures: Array<{ registry: string; error: string }> = [];
    for (const reg of targets) {
      let servers: RegistryEntry[];
      try {
        servers = await this.searchOne(reg, q, limit);
      } catch (err) {
        if (!(err instanceof RegistryFailure)) throw err;
        failures.push({ registry: reg.name, error: err.message });
        this.log.warn({ registry: reg.name, error: err.message }, `registry ${reg.name} failed; trying the next`);
        continue;
      }
      if (servers.length > 0) return { servers, registry: reg.name, total: servers.length };
    }
    if (failures.length > 0) throw unavailable(failures);
    return { servers: [], registry: only ?? '', total: 0 };
  }

  /** The latest version of one server, from the first registry that has it. */
  async lookup(serverName: string, only?: string): Promise<RegistryLookup> {
    const failures: Array<{ registry: string; error: string }> = [];
    for (const reg of this.targets(only)) {
      try {
        const path = `v0.1/servers/${encodeURIComponent(serverName)}/versions/latest`;
        const body = await withTimeout(reg, (signal) => getJson(reg, path, {}, signal));
        if (body === undefined) continue;
        if (!validateServer(body)) throw new RegistryFailure(`unexpected answer: ${ajv.errorsText(validateServer.errors)}`);
        return { registry: reg.name, server: body };
      } catch (err) {
        if (!(err instanceof RegistryFailure)) throw err;
        failures.push({ registry: reg.name, error: err.message });
      }
    }
    if (failures.length > 0) throw unavailable(failures);
    throw new GatewayError('registry_entry_not_found', `No configured registry has a server named '${serverName}'`, { name: serverName });
  }

  private targets(only: string | undefined): RegistrySettings[] {
    const all = this.registries();
    if (all.length === 0)
      throw new GatewayError('registry_not_found', 'No registries are configured (`registries:` in the config file)', only ? { registry: only } : {});
    if (only === undefined) return all;
    const found = all.find((r) => r.name === only);
    if (!found)
      throw new GatewayError('registry_not_found', `Registry '${only}' not found; configured: ${all.map((r) => r.name).join(', ')}`, { registry: only });
    return [found];
  }

  private async searchOne(reg: RegistrySettings, q: string, limit: number): Promise<RegistryEntry[]> {
    const key = JSON.stringify([reg.name, reg.url, q, limit]);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const servers = await withTimeout(reg, async (signal) => {
      const found: RegistryEntry[] = [];
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES && found.length < limit; page++) {
        const params: Record<string, string> = { search: q, limit: String(Math.min(limit - found.length, PAGE_MAX)), version: 'latest' };
        if (cursor) params.cursor = cursor;
        const body = await getJson(reg, 'v0.1/servers', params, signal);
        if (body === undefined) throw new RegistryFailure('HTTP 404 for /v0.1/servers: not an MCP registry API v0.1');
        if (!validateList(body)) throw new RegistryFailure(`unexpected answer: ${ajv.errorsText(validateList.errors)}`);
        found.push(...body.servers.map(toRegistryEntry));
        const next = body.metadata?.nextCursor;
        if (!next || seen.has(next)) break;
        seen.add(next);
        cursor = next;
      }
      return found.slice(0, limit);
    });
    this.cache.set(key, servers);
    return servers;
  }
}

function unavailable(failures: Array<{ registry: string; error: string }>): GatewayError {
  const reasons = failures.map((f) => `${f.registry}: ${f.error}`).join('; ');
  return new GatewayError('registry_unavailable', `No registry could answer (${reasons})`, { failures });
}

async function withTimeout<T>(reg: RegistrySettings, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const seconds = reg.timeout_s ?? DEFAULT_REGISTRY_TIMEOUT_S;
  const signal = AbortSignal.timeout(seconds * 1000);
  try {
    return await run(signal);
  } catch (err) {
    if (signal.aborted) throw new RegistryFailure(`no answer within ${seconds} s`);
    throw err;
  }
}

/** GET <registry url>/<path>?params as JSON; undefined for a 404. */
async function getJson(reg: RegistrySettings, path: string, params: Record<string, string>, signal: AbortSignal): Promise<unknown> {
  const base = reg.url.endsWith('/') ? reg.url : `${reg.url}/`;
  const url = new URL(path, base);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (reg.token) headers.authorization = `Bearer ${reg.token}`;
  let res: Response;
  try {
    res = await fetch(url, { headers, signal, redirect: reg.token ? 'error' : 'follow' });
  } catch (err) {
    if (signal.aborted) throw err;
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    throw new RegistryFailure(`cannot reach ${url.origin}: ${cause ?? (err as Error).message}`);
  }
  if (res.status === 404) {
    await res.body?.cancel();
    return undefined;
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new RegistryFailure(`HTTP ${res.status} from ${url.origin}${url.pathname}`);
  }
  try {
    return await res.json();
  } catch (err) {
    if (signal.aborted) throw err;
    throw new RegistryFailure(`the answer is not JSON: ${(err as Error).message}`);
  }
}
