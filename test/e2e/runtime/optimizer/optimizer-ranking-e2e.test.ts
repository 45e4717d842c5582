/**
 * The search's ranking through a real gateway, over the example config's
 * backends (server-everything and server-memory over stdio, as config.yaml
 * starts them, the memory server with all its tools: the example denies
 * `delete_*`, a config without that filter is the harder case): find_tool
 * puts the right tool first for the two requests issue 36 reports, and shows
 * each match's annotations.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { repoRoot } from '../../../fixtures/spawn.js';

const EVERYTHING = join(repoRoot(), 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const MEMORY = join(repoRoot(), 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

interface Found {
  name: string;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
}

describe('optimizer: the example backends ranked safely', () => {
  let h: Harness;
  let client: Client;

  beforeAll(async () => {
    process.env.GW_TEST_MEMORY_DIR = mkdtempSync(join(tmpdir(), 'gw-memory-'));
    h = await startGateway({
      conflict_resolution: { strategy: 'prefix', separator: '_' },
      optimizer: { enabled: true },
      backends: {
        everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], group: 'demo' },
        memory: { type: 'stdio', command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: '${GW_TEST_MEMORY_DIR}/memory.jsonl' }, group: 'demo' },
      },
    });
    delete process.env.GW_TEST_MEMORY_DIR;
    client = await h.connect();
  });
  afterAll(async () => h?.close());

  async function find(query: string): Promise<{ tools: Found[]; text: string }> {
    const result = (await client.callTool({ name: 'find_tool', arguments: { query } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    return { tools: (result.structuredContent as { tools: Found[] }).tools, text: (result.content[0] as { text: string }).text };
  }

  it('"add two numbers" finds everything_get-sum first, read-only, and says so', async () => {
    expect(h.gateway.serving.routes.tools.has('memory_add_observations')).toBe(true);
    const { tools, text } = await find('add two numbers');
    expect(tools[0].name).toBe('everything_get-sum');
    expect(tools[0].annotations).toMatchObject({ readOnlyHint: true });
    expect(text).toMatch(/1\. everything_get-sum \(backend everything, score [\d.]+; read-only\)/);
  });

  it('"remember a fact about a person" finds memory_add_observations first, not the destructive delete_observations', async () => {
    expect(h.gateway.serving.routes.tools.has('memory_delete_observations')).toBe(true);
    const { tools } = await find('remember a fact about a person');
    expect(tools[0].name).toBe('memory_add_observations');
    expect(tools[0].annotations).toMatchObject({ destructiveHint: false });
    const del = tools.find((t) => t.name === 'memory_delete_observations');
    if (del) expect(del.annotations).toMatchObject({ destructiveHint: true });
  });
});
