/**
 * What the routing layer needs from the skill manager is enough to serve
 * skills to a real SDK client: a minimal SDK Server answers tools/list,
 * tools/call, resources/list and resources/read from catalog(), callTool()
 * and readResource(), and forwards onChange() as list_changed. The client
 * sees workflow tools and skill resources appear on enable and disappear on
 * disable, and a workflow's output passes the SDK client's outputSchema check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { SkillManager } from '../../../../runtime/skills/skill-manager.js';
import type { JsonObject } from '../../../../runtime/routing/caller.js';
import { fixtureToolCaller, newSkillManager, type FixtureToolCaller } from '../../../helpers/skill-fixtures.js';
import { collectNotifications, type NotificationLog } from '../../../helpers/notifications.js';

describe('skills served to an MCP client', () => {
  let fx: FixtureToolCaller;
  let manager: SkillManager;
  let client: Client;
  let server: Server;
  let notes: NotificationLog;

  beforeAll(async () => {
    fx = await fixtureToolCaller();
    manager = newSkillManager({ callStep: fx.callStep, toolAvailable: (name) => fx.toolNames.has(name) });
    await manager.start();

    server = new Server({ name: 'skills-demo', version: '1.0.0' }, { capabilities: { tools: { listChanged: true }, resources: { listChanged: true } } });
    server.fallbackRequestHandler = async (request, extra): Promise<JsonObject> => {
      const params = (request.params ?? {}) as JsonObject;
      switch (request.method) {
        case 'tools/list':
          return { tools: manager.catalog().tools };
        case 'resources/list':
          return { resources: manager.catalog().resources };
        case 'tools/call':
          return manager.callTool(String(params.name), (params.arguments ?? {}) as JsonObject, { signal: extra.signal });
        case 'resources/read':
          return manager.readResource(String(params.uri));
        default:
          throw new McpError(ErrorCode.MethodNotFound, request.method);
      }
    };
    manager.onChange((change) => {
      if (change.tools) void server.sendToolListChanged();
      if (change.resources) void server.sendResourceListChanged();
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'demo-client', version: '1.0.0' });
    notes = collectNotifications(client);
    await Promise.all([server.connect(b), client.connect(a)]);
  });
  afterAll(async () => {
    await client?.close();
    await manager?.stop();
    await fx?.close();
  });

  it('workflow tools and skill resources appear on enable, work, and disappear on disable, each time with list_changed', async () => {
    expect((await client.listTools()).tools).toEqual([]);

    await manager.setStatus('legacy-echo', 'enabled');
    await notes.waitFor('notifications/tools/list_changed');
    await notes.waitFor('notifications/resources/list_changed');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['legacy-echo_shout']);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['skill://legacy-echo/manifest.json']);

    // listTools() above taught the client the outputSchema; callTool validates structuredContent against it.
    const result = await client.callTool({ name: 'legacy-echo_shout', arguments: { text: 'hey' } });
    expect(result).toEqual({ content: [{ type: 'text', text: 'hey!' }], structuredContent: { steps: { say: 'hey!' } }, isError: false });
    const read = await client.readResource({ uri: 'skill://legacy-echo/manifest.json' });
    expect(JSON.parse((read.contents[0] as { text: string }).text).name).toBe('legacy-echo');

    await manager.setStatus('legacy-echo', 'disabled');
    await notes.waitFor('notifications/tools/list_changed', () => notes.count('notifications/tools/list_changed') === 2);
    await notes.waitFor('notifications/resources/list_changed', () => notes.count('notifications/resources/list_changed') === 2);
    expect((await client.listTools()).tools).toEqual([]);
    expect((await client.listResources()).resources).toEqual([]);
    await expect(client.callTool({ name: 'legacy-echo_shout', arguments: { text: 'hey' } })).rejects.toThrow(/Unknown tool: legacy-echo_shout/);
  });
});
