/**
 * Skills served to MCP clients through the real gateway: enabling a skill
 * makes its workflow tools and `skill://` files appear for an SDK client
 * (with tools/list_changed and resources/list_changed), a workflow runs its
 * steps against a real stdio backend through the router (each step audited,
 * naming workflow and step), and disabling takes it all away again.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { fixtureCommand } from '../../../fixtures/spawn.js';
import { copySkillFixtures } from '../../../helpers/skill-fixtures.js';
import { collectNotifications, type NotificationLog } from '../../../helpers/notifications.js';
import { waitFor } from '../../../helpers/wait.js';
import { managementClient } from '../../../helpers/management-client.js';

const text = (r: unknown) => (r as { content: Array<{ text: string }> }).content.map((c) => c.text).join('\n');

describe('skills served to MCP clients', () => {
  let h: Harness;
  let client: Client;
  let notes: NotificationLog;

  beforeAll(async () => {
    const fx = fixtureCommand(['--name', 'fx']);
    h = await startGateway({ backends: { fx: { type: 'stdio', command: fx.command, args: fx.args } }, skills: { directory: copySkillFixtures() } });
    client = await h.connect();
    notes = collectNotifications(client);
  });
  afterAll(async () => h?.close());

  it('a disabled skill is invisible; enabling it adds its workflow tools and files, with list_changed', async () => {
    const before = await client.listTools();
    expect(before.tools.some((t) => t.name.startsWith('diamond_'))).toBe(false);
    const api = managementClient(h.url);
    expect((await api.post('/skills/diamond/enable')).status).toBe(200);
    await notes.waitFor('notifications/tools/list_changed');
    await notes.waitFor('notifications/resources/list_changed');
    const tools = (await client.listTools()).tools;
    const combine = tools.find((t) => t.name === 'diamond_combine')!;
    expect(combine).toBeDefined();
    expect(combine.inputSchema).toMatchObject({ type: 'object', required: ['text', 'a', 'b'] });
    const resources = (await client.listResources()).resources.map((r) => r.uri);
    expect(resources).toContain('skill://diamond/SKILL.md');
    const skillMd = await client.readResource({ uri: 'skill://diamond/SKILL.md' });
    expect((skillMd.contents[0] as { text: string }).text).toMatch(/^---/);
    // The capabilities view names the skill as the owner.
    const caps = (await api.get('/capabilities?search=diamond_')).body as { route_map: Record<string, string[]> };
    expect(caps.route_map.diamond_combine).toEqual(['skill:diamond', 'diamond_combine']);
  });

  it('a workflow runs its diamond of steps against the backend, each step audited with its workflow and step', async () => {
    const result = await client.callTool({ name: 'diamond_combine', arguments: { text: 'go', a: 2, b: 3 } });
    expect(result.isError).toBeFalsy();
    const steps = (result.structuredContent as { steps: Record<string, string> }).steps;
    expect(Object.keys(steps).sort()).toEqual(['join', 'left', 'right', 'start']);
    expect(text(result)).toContain(steps.join!);
    await h.gateway.audit.flush();
    const records = readFileSync(`${h.dir}/audit.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { target: { backend: string; capability_name: string }; metadata: Record<string, unknown> });
    const workflowCall = records.find((r) => r.target.capability_name === 'diamond_combine')!;
    expect(workflowCall.target.backend).toBe('skill:diamond');
    const stepCalls = records.filter((r) => r.metadata.workflow === 'combine');
    expect(stepCalls.map((r) => r.metadata.step).sort()).toEqual(['join', 'left', 'right', 'start']);
    expect(stepCalls.every((r) => r.target.backend === 'fx' && r.metadata.skill === 'diamond')).toBe(true);
  });

  it('a failing step stops the workflow: isError, naming the step; later steps never start', async () => {
    const result = await client.callTool({ name: 'diamond_guarded', arguments: { text: 'x' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('boom');
  });

  it('disabling takes the tools and files away again, with list_changed', async () => {
    const toolsChanged = notes.count('notifications/tools/list_changed');
    expect((await managementClient(h.url).post('/skills/diamond/disable')).status).toBe(200);
    await waitFor(() => notes.count('notifications/tools/list_changed') > toolsChanged, 'a second tools/list_changed');
    expect((await client.listTools()).tools.some((t) => t.name.startsWith('diamond_'))).toBe(false);
    expect((await client.listResources()).resources.some((r) => r.uri.startsWith('skill://diamond/'))).toBe(false);
    await expect(client.callTool({ name: 'diamond_combine', arguments: { text: 'go', a: 1, b: 1 } })).rejects.toThrow(/Unknown tool/);
  });
});
