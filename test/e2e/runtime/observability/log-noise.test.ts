/**
 * Issue 10 §6, what a new user sees in the log: a backend whose tools arrive
 * a moment after it connects is announced with its real counts (not "0
 * tools"), and expected outcomes (a 404, a 503 from a feature not configured)
 * are logged without a stack trace and not as errors.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { repoRoot } from '../../../fixtures/spawn.js';
import { managementClient } from '../../../helpers/management-client.js';

describe('log lines a new user reads', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGateway(
      {
        backends: {
          // server-everything registers its tools after initialization and says so with list_changed.
          everything: {
            type: 'stdio',
            command: process.execPath,
            args: [join(repoRoot(), 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
          },
        },
      },
      { logLevel: 'info' },
    );
  });
  afterAll(async () => h?.close());

  const lines = () =>
    h.logs.map((l) => JSON.parse(l) as { level: number; msg: string; event?: string; backend?: string; err?: { stack?: string }; stack?: string });

  it('announces the counts once the catalog has settled, never "0 tools" for a backend that has tools', async () => {
    const catalog = await h.waitForEvent((e) => e.backend === 'everything' && e.stage === 'catalog' && (e.details.tools as number) > 0);
    expect(catalog.message).toMatch(/^everything: \d+ tools, \d+ resources, \d+ prompts$/);
    const connected = lines().find((l) => l.event === 'connected' && l.backend === 'everything')!;
    expect(connected.msg).toMatch(/^everything connected in \d+ ms$/);
    expect(lines().some((l) => /everything.*\b0 tools\b/.test(l.msg))).toBe(false);
  });

  it('a 404 and a 503 of a feature not configured are no errors and carry no stack trace', async () => {
    const api = managementClient(h.url);
    expect((await api.post('/tools/call', { tool: 'nope', arguments: {} })).status).toBe(404);
    expect((await api.get('/registry/search?q=files')).status).toBe(404);
    expect((await api.post('/reconnect/nope')).status).toBe(404);
    const noisy = lines().filter((l) => l.level >= 50 || l.err?.stack !== undefined || l.stack !== undefined);
    expect(noisy).toEqual([]);
  });
});
