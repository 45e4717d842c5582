/**
 * A backend's own tool names that would make invalid MCP tool names (a
 * space, a right-to-left override, over 128 characters with the prefix) are
 * left out of the route table: never listed, never callable, reported once
 * as a warning event and in GET /capabilities; `rename` gives such a tool a
 * valid name and serves it.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { fixtureCommand } from '../../../fixtures/spawn.js';

const RTL = 'x\u202eevil';
const LONG = 'l'.repeat(125); // 125 is valid at the backend; `odd_` makes it 129
const ODD_TOOLS = ['bad name', RTL, LONG, 'fine'];

const stdio = (args: string[]) => ({ type: 'stdio', ...fixtureCommand(args) });
const text = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0].text;

describe('routing: tool names that break the MCP rules', () => {
  let h: Harness;
  let client: Client;
  beforeAll(async () => {
    h = await startGateway({
      backends: {
        odd: stdio(['--name', 'odd', '--tools', ODD_TOOLS.join(',')]),
        fixed: { ...stdio(['--name', 'fixed', '--tools', 'bad name']), rename: { tools: { 'bad name': { name: 'bad_name' } } } },
      },
    });
    client = await h.connect();
  });
  afterAll(() => h?.close());

  it('are neither listed nor callable; the valid tools of the same backend are served', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('odd_fine');
    expect(names).toContain('odd_echo');
    for (const bad of ['odd_bad name', `odd_${RTL}`, `odd_${LONG}`]) {
      expect(names).not.toContain(bad);
      const err = await client.callTool({ name: bad, arguments: {} }).catch((e: unknown) => e);
      expect(err, bad).toBeInstanceOf(McpError);
    }
    expect(names.every((n) => /^[A-Za-z0-9_.-]{1,128}$/.test(n))).toBe(true);
    expect(text(await client.callTool({ name: 'odd_fine', arguments: {} }))).toBe('odd:fine');
  });

  it('a rename gives such a tool a valid name', async () => {
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('fixed_bad_name');
    expect(text(await client.callTool({ name: 'fixed_bad_name', arguments: {} }))).toBe('fixed:bad name');
  });

  it('GET /capabilities says why each is hidden; one warning event names them without printing control characters', async () => {
    const caps = (await (await fetch(`${h.url}/manage/v1/capabilities?backend=odd`)).json()) as {
      tools: Array<{ name: string; original_name: string; name_error?: string; filtered: boolean }>;
      route_map: Record<string, unknown>;
    };
    const entry = (original: string) => caps.tools.find((t) => t.original_name === original)!;
    expect(entry('bad name').name_error).toMatch(/"odd_bad name" is not a valid tool name: it has a space/);
    expect(entry(RTL).name_error).toContain('U+202E');
    expect(entry(LONG).name_error).toContain('129 characters');
    expect(entry('fine')).not.toHaveProperty('name_error');
    expect(caps.route_map).not.toHaveProperty('odd_bad name');

    const event = await h.waitForEvent((e) => e.stage === 'catalog' && e.backend === 'odd' && e.severity === 'warning');
    expect(event.message).toContain('odd_bad name');
    expect(event.message).toContain('backends.odd.rename.tools');
    expect(event.message).not.toContain('\u202e');
    expect((event.details.invalid_tool_names as Array<{ original: string }>).map((n) => n.original).sort()).toEqual(['bad name', LONG, RTL].sort());
    // Reported once, not on every rebuild of the route table.
    expect(h.gateway.events.list().filter((e) => e.stage === 'catalog' && e.severity === 'warning' && e.backend === 'odd')).toHaveLength(1);
    // The renamed backend has nothing to report.
    expect(h.gateway.events.list().some((e) => e.stage === 'catalog' && e.severity === 'warning' && e.backend === 'fixed')).toBe(false);
  });
});
