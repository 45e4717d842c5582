/**
 * A 2026-07-28 list is kept no longer than any backend serving part of it
 * allowed (issue 32, item 5): its `ttlMs` is the shortest of
 * `server.cache_ttl_s` and every serving backend's own `ttlMs` for that
 * list. Backends: two v2 SDK servers (2026-07-28 only) told what cache hints
 * to give, and a 1.x server (2025-11-25, which gives none). A 2025-11-25
 * session's lists carry no cache hints at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { fixtureCommand, fixtureMainPath } from '../../../fixtures/spawn.js';
import { waitFor } from '../../../helpers/wait.js';

const MODERN = '2026-07-28';
const CONFIG_TTL_MS = 2000;

const v2Stdio = (name: string, cacheHints: Record<string, { ttlMs: number }>) => ({
  type: 'stdio',
  command: process.execPath,
  args: [fixtureMainPath('v2-fixture-server-main'), '--transport', 'stdio', '--name', name, '--modern-only', '--cache-hints', JSON.stringify(cacheHints)],
});

describe('2026-07-28 list ttlMs, capped by the backends', () => {
  let h: Harness;
  let client: Client;

  beforeAll(async () => {
    const legacy = fixtureCommand(['--name', 'legacy']);
    h = await startGateway({
      server: { host: '127.0.0.1', port: 0, cache_ttl_s: CONFIG_TTL_MS / 1000 },
      backends: {
        // Says 1.5 s for its tools, much longer than the config for its prompts, nothing for its resources (the SDK then says 0).
        a: v2Stdio('a', { 'tools/list': { ttlMs: 1500 }, 'prompts/list': { ttlMs: 120_000 }, 'resources/templates/list': { ttlMs: 120_000 } }),
        // Says less for its tools than `a`: the shortest wins.
        b: v2Stdio('b', {
          'tools/list': { ttlMs: 900 },
          'prompts/list': { ttlMs: 120_000 },
          'resources/list': { ttlMs: 120_000 },
          'resources/templates/list': { ttlMs: 120_000 },
        }),
        legacy: { type: 'stdio', command: legacy.command, args: legacy.args },
      },
    });
    client = new Client({ name: 'ttl-test', version: '2.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`)));
    await waitFor(async () => (await client.listTools({}, { cacheMode: 'bypass' })).tools.some((t) => t.name === 'legacy_echo'), 'every backend serving');
  });
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await h?.close();
  });

  it("a list's ttlMs is the shortest of the config's and every serving backend's own", async () => {
    const tools = await client.listTools({}, { cacheMode: 'bypass' });
    expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['a_echo', 'b_echo', 'legacy_echo']));
    expect(tools.ttlMs).toBe(900);
    // Both backends allow longer than the config: the config's.
    expect((await client.listPrompts({}, { cacheMode: 'bypass' })).ttlMs).toBe(CONFIG_TTL_MS);
    expect((await client.listResourceTemplates({}, { cacheMode: 'bypass' })).ttlMs).toBe(CONFIG_TTL_MS);
    // `a` said nothing of its resources list, so its SDK said 0 (not to be kept): neither is the merged list.
    expect((await client.listResources({}, { cacheMode: 'bypass' })).ttlMs).toBe(0);
  });

  it("a 2025-11-25 session's lists carry no cache hints", async () => {
    const legacyClient = await h.connect();
    try {
      const raw = (await legacyClient.listTools()) as Record<string, unknown>;
      expect(raw.tools).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'b_echo' })]));
      expect(raw).not.toHaveProperty('ttlMs');
      expect(raw).not.toHaveProperty('cacheScope');
    } finally {
      await legacyClient.close();
    }
  });
});
