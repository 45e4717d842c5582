/**
 * One gateway in front of a mix of real backends over all three transports
 * (stdio, SSE, streamable HTTP), the two real npm servers (server-everything,
 * server-memory), a paginating backend and one backend that cannot start.
 * Checks parallel start, aggregation with filters and renames, route map,
 * pagination, and forwarding fidelity for every MCP method, over /mcp and /sse.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, ListRootsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { fixtureCommand, repoRoot, startHttpFixture, type HttpFixture } from '../../../fixtures/spawn.js';
import { collectNotifications } from '../../../helpers/notifications.js';
import { startPagedBackend, type PagedBackend } from '../../../fixtures/paged-backend.js';
import { rpcError } from '../../../helpers/rpc-error.js';

const EVERYTHING = join(repoRoot(), 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const MEMORY = join(repoRoot(), 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const CLIENT_CAPS = { sampling: {}, elicitation: {}, roots: { listChanged: true } };

/** The fixture's tools, as the fixture registers them (no --tools). */
const FIXTURE_TOOLS = ['add', 'add_tool', 'burst', 'echo', 'elicit', 'fail', 'last_cancelled', 'log', 'roots', 'sample', 'slow', 'throw', 'touch', 'whoami'];

const namesWith = (tools: Array<{ name: string }>, prefix: string) =>
  tools
    .map((t) => t.name)
    .filter((n) => n.startsWith(prefix))
    .map((n) => n.slice(prefix.length))
    .sort();

describe('core: aggregation over mixed transports', () => {
  let h: Harness;
  let sse: HttpFixture;
  let http: HttpFixture;
  let paged: PagedBackend;
  let pagedSse: PagedBackend;
  let client: Client;
  let memoryDir: string;

  beforeAll(async () => {
    [sse, http, paged, pagedSse] = await Promise.all([
      startHttpFixture({ transport: 'sse', name: 'web' }),
      startHttpFixture({ transport: 'streamable-http', name: 'api' }),
      startPagedBackend({ tools: 23, resources: 11, templates: 7, prompts: 9, pageSize: 4 }),
      startPagedBackend({ tools: 6, resources: 0, templates: 0, prompts: 0, pageSize: 4, transport: 'sse' }),
    ]);
    process.env.GW_TEST_TOKEN = 'gw-test-t0ken-0123456789';
    const fixtureDir = join(repoRoot(), 'dist', 'test', 'fixtures');
    memoryDir = mkdtempSync(join(tmpdir(), 'gw-memory-'));
    process.env.GW_TEST_MEMORY_DIR = memoryDir;
    const stdio = fixtureCommand(['--name', 'files']);
    h = await startGateway({
      backends: {
        // cwd is honoured: the script path is relative to it.
        files: {
          type: 'stdio',
          command: stdio.command,
          args: ['fixture-server-main.js', ...stdio.args.slice(1)],
          cwd: fixtureDir,
          group: 'local',
          rename: {
            tools: { echo: { name: 'say', description: 'Echo, renamed' }, whoami: { name: 'me' } },
            prompts: { greet: { name: 'welcome', description: 'Greets, renamed' } },
          },
          // Filters match original names: whoami is denied although it would be exposed as `me`.
          filters: { resources: { deny: ['fixture://files/info'] }, tools: { deny: ['whoami'] } },
        },
        web: {
          type: 'sse',
          url: sse.url,
          filters: { tools: { allow: ['e*', 'fail', 'throw', 'whoami'], deny: ['whoami'] }, prompts: { deny: ['*'] } },
        },
        api: { type: 'streamable-http', url: http.url },
        everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
        // env is passed to the process, after ${VAR} expansion.
        memory: {
          type: 'stdio',
          command: process.execPath,
          args: [MEMORY],
          env: { MEMORY_FILE_PATH: '${GW_TEST_MEMORY_DIR}/memory.jsonl' },
          filters: { tools: { deny: ['delete_*'] } },
        },
        broken: { type: 'stdio', command: '/nonexistent/gateway-test-binary', args: [] },
        paged: { type: 'streamable-http', url: paged.url, headers: { Authorization: 'Bearer ${GW_TEST_TOKEN}', 'X-Gateway-Test': 'streamable' } },
        pagedsse: { type: 'sse', url: pagedSse.url, headers: { Authorization: 'Bearer ${GW_TEST_TOKEN}', 'X-Gateway-Test': 'sse' } },
      },
    });
    delete process.env.GW_TEST_MEMORY_DIR;
    delete process.env.GW_TEST_TOKEN;
    client = await h.connect({ capabilities: CLIENT_CAPS });
  });

  afterAll(async () => {
    await h?.close();
    await Promise.all([sse?.stop(), http?.stop(), paged?.close(), pagedSse?.close()]);
  });

  it('connects backends in parallel; the one that cannot start fails alone', () => {
    const records = h.gateway.controller.backendRecords();
    const phase = Object.fromEntries(records.map((r) => [r.name, r.phase]));
    expect(phase).toEqual({
      files: 'Ready',
      web: 'Ready',
      api: 'Ready',
      everything: 'Ready',
      memory: 'Ready',
      broken: 'Failed',
      paged: 'Ready',
      pagedsse: 'Ready',
    });
    expect(records.find((r) => r.name === 'files')!.group).toBe('local');
    expect(records.find((r) => r.name === 'api')!.group).toBe('default');
    const broken = records.find((r) => r.name === 'broken')!;
    expect(broken.error).toMatch(/ENOENT|nonexistent/);
    expect(broken.state).toBe('disconnected');
    for (const r of records.filter((x) => x.name !== 'broken')) expect(r.state).toBe('connected');

    // Parallel: every working backend started connecting before any of them finished.
    const events = h.gateway.events.list();
    const ok = ['files', 'web', 'api', 'everything', 'memory', 'paged', 'pagedsse'];
    const lastConnecting = Math.max(...ok.map((b) => events.findIndex((e) => e.stage === 'connecting' && e.backend === b)));
    const firstConnected = Math.min(...ok.map((b) => events.findIndex((e) => e.stage === 'connected' && e.backend === b)));
    expect(lastConnecting).toBeGreaterThanOrEqual(0);
    expect(firstConnected).toBeGreaterThan(lastConnecting);
  });

  it('exposes every backend with the <backend>_ prefix, after filters and renames', async () => {
    const { tools } = await client.listTools();
    // stdio, with a rename: echo is exposed as files_say only.
    expect(namesWith(tools, 'files_')).toEqual(
      FIXTURE_TOOLS.filter((t) => t !== 'whoami')
        .map((t) => (t === 'echo' ? 'say' : t))
        .sort(),
    );
    const say = tools.find((t) => t.name === 'files_say')!;
    const echo = tools.find((t) => t.name === 'api_echo')!;
    expect(say.description).toBe('Echo, renamed');
    // Everything but name and description is passed on as the backend defined it.
    expect({ ...say, name: 'x', description: 'x' }).toEqual({ ...echo, name: 'x', description: 'x' });
    expect(echo.outputSchema?.properties).toHaveProperty('text');
    expect(echo.inputSchema.properties).toHaveProperty('text');
    // SSE: allow globs, and deny wins over allow (whoami).
    expect(namesWith(tools, 'web_')).toEqual(['echo', 'elicit', 'fail', 'throw']);
    // streamable HTTP: everything.
    expect(namesWith(tools, 'api_')).toEqual(FIXTURE_TOOLS);
    // server-memory without its delete_* tools.
    const memory = namesWith(tools, 'memory_');
    expect(memory).toEqual(expect.arrayContaining(['create_entities', 'read_graph', 'add_observations']));
    expect(memory.filter((n) => n.startsWith('delete_'))).toEqual([]);
    // Nothing from the broken backend, and no unprefixed names.
    expect(tools.filter((t) => t.name.startsWith('broken_'))).toEqual([]);
    const prefixes = ['files_', 'web_', 'api_', 'everything_', 'memory_', 'paged_', 'pagedsse_'];
    expect(tools.filter((t) => !prefixes.some((p) => t.name.startsWith(p)))).toEqual([]);
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
  });

  it('route_map sends every exposed name back to [backend, original]', async () => {
    const { route_map: map } = (await (await fetch(`${h.url}/manage/v1/capabilities`)).json()) as { route_map: Record<string, string[]> };
    expect(map.files_say).toEqual(['files', 'echo']);
    expect(map.files_welcome).toEqual(['files', 'greet']);
    expect(map.web_echo).toEqual(['web', 'echo']);
    expect(map['memory_read_graph']).toEqual(['memory', 'read_graph']);
    expect(map['fixture://api/info']).toEqual(['api', 'fixture://api/info']);
    expect(map['fixture://web/items/{id}']).toEqual(['web', 'fixture://web/items/{id}']);
    expect(map.web_whoami).toBeUndefined();
    const { tools } = await client.listTools();
    for (const t of tools) expect(map[t.name], t.name).toBeDefined();
    // Filtered entries are kept (marked) for operators.
    const all = h.gateway.serving.routes.all.tools;
    expect(all.find((e) => e.backend === 'web' && e.original === 'whoami')).toMatchObject({ filtered: true });
    expect(all.find((e) => e.backend === 'files' && e.original === 'echo')).toMatchObject({ renamed: true, filtered: false });
  });

  it('follows backend pagination for tools, resources, templates and prompts', async () => {
    const [{ tools }, { resources }, { resourceTemplates }, { prompts }] = await Promise.all([
      client.listTools(),
      client.listResources(),
      client.listResourceTemplates(),
      client.listPrompts(),
    ]);
    expect(namesWith(tools, 'paged_')).toEqual(Array.from({ length: 23 }, (_, i) => `ptool${i}`).sort());
    expect(resources.filter((r) => r.uri.startsWith('paged://')).map((r) => r.uri)).toEqual(Array.from({ length: 11 }, (_, i) => `paged://r/${i}`));
    expect(resourceTemplates.filter((t) => t.uriTemplate.startsWith('paged://'))).toHaveLength(7);
    expect(namesWith(prompts, 'paged_')).toHaveLength(9);
    // The backend really paginated: the gateway came back with its cursors.
    expect(paged.cursors['tools/list']).toEqual([undefined, 'page-4', 'page-8', 'page-12', 'page-16', 'page-20']);
    expect(namesWith(tools, 'pagedsse_')).toEqual(['ptool0', 'ptool1', 'ptool2', 'ptool3', 'ptool4', 'ptool5']);
    const r = await client.callTool({ name: 'paged_ptool22', arguments: {} });
    expect(r.content).toEqual([{ type: 'text', text: 'called ptool22' }]);
  });

  it('sends the configured headers (with ${VAR} expanded) on every request to HTTP backends', () => {
    for (const [backend, marker] of [
      [paged, 'streamable'],
      [pagedSse, 'sse'],
    ] as const) {
      expect(backend.requests.length).toBeGreaterThan(1);
      for (const r of backend.requests) {
        expect(r.headers.authorization, `${r.method} ${r.path}`).toBe('Bearer gw-test-t0ken-0123456789');
        expect(r.headers['x-gateway-test'], `${r.method} ${r.path}`).toBe(marker);
      }
    }
    // The SSE backend saw both its event stream (GET) and messages (POST).
    expect(new Set(pagedSse.requests.map((r) => r.method))).toEqual(new Set(['GET', 'POST']));
  });

  it('exposes exactly what server-everything offers (tools, all resources, templates, prompts)', async () => {
    // Ask server-everything directly, with the same client capabilities the gateway declares.
    const direct = new Client({ name: 'direct', version: '1' }, { capabilities: CLIENT_CAPS });
    direct.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [] }));
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
    try {
      const all = async <T>(list: (cursor?: string) => Promise<{ nextCursor?: string } & Record<string, unknown>>, field: string) => {
        const out: T[] = [];
        let cursor: string | undefined;
        do {
          const page = await list(cursor);
          out.push(...(page[field] as T[]));
          cursor = page.nextCursor;
        } while (cursor);
        return out;
      };
      const dResources = await all<{ uri: string }>((c) => direct.listResources(c ? { cursor: c } : undefined), 'resources');
      const dTemplates = await all<{ uriTemplate: string }>((c) => direct.listResourceTemplates(c ? { cursor: c } : undefined), 'resourceTemplates');
      const dPrompts = await all<{ name: string }>((c) => direct.listPrompts(c ? { cursor: c } : undefined), 'prompts');
      const { resources } = await client.listResources();
      const { resourceTemplates } = await client.listResourceTemplates();
      const { prompts } = await client.listPrompts();
      const gwResources = resources.map((r) => r.uri).filter((u) => u.startsWith('demo://'));
      expect(dResources.length).toBeGreaterThan(0);
      expect(gwResources.sort()).toEqual(dResources.map((r) => r.uri).sort());
      expect(
        resourceTemplates
          .filter((t) => t.uriTemplate.startsWith('demo://'))
          .map((t) => t.uriTemplate)
          .sort(),
      ).toEqual(dTemplates.map((t) => t.uriTemplate).sort());
      expect(namesWith(prompts, 'everything_')).toEqual(dPrompts.map((p) => p.name).sort());
      // server-everything registers some tools only once it knows the client's
      // capabilities (a tools/list_changed after initialize): the gateway must have them.
      const { tools } = await client.listTools();
      expect(namesWith(tools, 'everything_')).toEqual(expect.arrayContaining(['echo', 'get-sum', 'trigger-sampling-request', 'trigger-elicitation-request']));
    } finally {
      await direct.close();
    }
  });

  it('forwards tools/call with arguments, structuredContent, isError and backend JSON-RPC errors', async () => {
    for (const name of ['files_say', 'web_echo', 'api_echo']) {
      const r = await client.callTool({ name, arguments: { text: `via ${name}` } });
      expect(r.structuredContent, name).toEqual({ text: `via ${name}` });
      expect(r.content, name).toEqual([{ type: 'text', text: `via ${name}` }]);
      expect(r.isError ?? false).toBe(false);
    }
    expect((await client.callTool({ name: 'api_add', arguments: { a: 2, b: 40 } })).content).toEqual([{ type: 'text', text: '42' }]);

    const failed = await client.callTool({ name: 'web_fail', arguments: { message: 'nope' } });
    expect(failed.isError).toBe(true);
    expect(failed.content).toEqual([{ type: 'text', text: 'nope' }]);

    for (const name of ['web_throw', 'api_throw', 'files_throw']) {
      const err = await rpcError(client.callTool({ name, arguments: { message: `boom ${name}` } }));
      expect(err.code).toBe(ErrorCode.InternalError);
      expect(err.message).toContain(`boom ${name}`);
    }
    // The backend's own argument validation answers (an isError result from the SDK server), unchanged.
    const bad = await client.callTool({ name: 'api_add', arguments: { a: 'x', b: 1 } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toMatch(/Input validation error.*expected number/);

    const ev = await client.callTool({ name: 'everything_echo', arguments: { message: 'hello everything' } });
    expect(JSON.stringify(ev.content)).toContain('hello everything');
    const sum = await client.callTool({ name: 'everything_get-sum', arguments: { a: 3, b: 4 } });
    expect(JSON.stringify(sum.content)).toContain('7');
  });

  it('unknown or filtered tools, resources and prompts get a JSON-RPC error naming them', async () => {
    for (const name of ['no_such_tool', 'web_whoami', 'files_echo', 'broken_echo', 'echo']) {
      const err = await rpcError(client.callTool({ name, arguments: {} }));
      expect(err.code).toBe(ErrorCode.InvalidParams);
      expect(err.message).toContain(name);
    }
    for (const uri of ['fixture://nobody/info', 'fixture://files/info']) {
      const err = await rpcError(client.readResource({ uri }));
      expect(err.message).toContain(uri);
    }
    for (const name of ['no_such_prompt', 'web_greet', 'files_greet']) {
      const err = await rpcError(client.getPrompt({ name, arguments: { name: 'x' } }));
      expect(err.code).toBe(ErrorCode.InvalidParams);
      expect(err.message).toContain(name);
    }
  });

  it('lists and reads resources and templates; resource filters match URIs, deny wins', async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(['fixture://api/info', 'fixture://web/info', 'fixture://files/items/1']));
    expect(uris).not.toContain('fixture://files/info');
    expect(new Set(uris).size).toBe(uris.length);
    const info = await client.readResource({ uri: 'fixture://web/info' });
    expect(info.contents).toEqual([{ uri: 'fixture://web/info', mimeType: 'text/plain', text: 'info from web' }]);
    // A URI no backend listed, routed by its template.
    const item = await client.readResource({ uri: 'fixture://api/items/999' });
    expect(item.contents[0]).toMatchObject({ uri: 'fixture://api/items/999', text: 'item 999 from api' });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining(['fixture://files/items/{id}', 'fixture://web/items/{id}', 'fixture://api/items/{id}']),
    );
    const ev = await client.readResource({ uri: resources.find((r) => r.uri.startsWith('demo://'))!.uri });
    expect(ev.contents.length).toBeGreaterThan(0);
  });

  it('prompts: renamed, filtered, fetched with arguments; completion for prompts and templates', async () => {
    const { prompts } = await client.listPrompts();
    const names = prompts.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['files_welcome', 'api_greet']));
    expect(names.filter((n) => n.startsWith('web_'))).toEqual([]);
    expect(names).not.toContain('files_greet');
    const got = await client.getPrompt({ name: 'files_welcome', arguments: { name: 'alice' } });
    expect(got.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello alice from files' } }]);
    expect(prompts.find((p) => p.name === 'files_welcome')!.description).toBe('Greets, renamed');
    expect(prompts.find((p) => p.name === 'api_greet')!.arguments).toEqual([expect.objectContaining({ name: 'name', required: true })]);

    const c1 = await client.complete({ ref: { type: 'ref/prompt', name: 'files_welcome' }, argument: { name: 'name', value: 'a' } });
    expect(c1.completion.values).toEqual(['alice']);
    const c2 = await client.complete({ ref: { type: 'ref/resource', uri: 'fixture://web/items/{id}' }, argument: { name: 'id', value: '1' } });
    expect(c2.completion.values).toEqual(['1', '10']);
    const err = await rpcError(client.complete({ ref: { type: 'ref/prompt', name: 'nope_prompt' }, argument: { name: 'x', value: '' } }));
    expect(err.message).toContain('nope_prompt');
  });

  it('ping, and logging/setLevel reaches the backends while log messages reach the client', async () => {
    expect(await client.ping()).toEqual({});
    const sseClient = await h.connect({ transport: 'sse' });
    const log = collectNotifications(sseClient);
    await sseClient.setLoggingLevel('warning');
    // The backend itself now filters below warning: proof that setLevel was forwarded.
    const low = await sseClient.callTool({ name: 'api_log', arguments: { level: 'info', message: 'quiet' } });
    expect(low.content).toEqual([{ type: 'text', text: 'filtered info' }]);
    const high = await sseClient.callTool({ name: 'api_log', arguments: { level: 'error', message: 'loud' } });
    expect(high.content).toEqual([{ type: 'text', text: 'logged error' }]);
    const msg = await log.waitFor('notifications/message', (n) => (n.params as { data?: unknown }).data === 'loud');
    expect(msg.params).toMatchObject({ level: 'error', logger: 'api', data: 'loud' });
  });

  it('the /sse endpoint serves the same catalog and forwards calls', async () => {
    const sseClient = await h.connect({ transport: 'sse' });
    const [viaSse, viaHttp] = await Promise.all([sseClient.listTools(), client.listTools()]);
    expect(viaSse.tools.map((t: Tool) => t.name).sort()).toEqual(viaHttp.tools.map((t: Tool) => t.name).sort());
    const r = await sseClient.callTool({ name: 'web_echo', arguments: { text: 'over sse twice' } });
    expect(r.structuredContent).toEqual({ text: 'over sse twice' });
    const p = await sseClient.getPrompt({ name: 'api_greet', arguments: { name: 'bob' } });
    expect(p.messages[0].content).toEqual({ type: 'text', text: 'Hello bob from api' });
  });

  it('server-memory (stdio, env from config) stores and reads back entities in the file its env names', async () => {
    const stamp = `gw-test-${process.pid}`;
    const file = join(memoryDir, 'memory.jsonl');
    expect(existsSync(file)).toBe(false);
    await client.callTool({
      name: 'memory_create_entities',
      arguments: { entities: [{ name: stamp, entityType: 'test', observations: ['made through the gateway'] }] },
    });
    const graph = await client.callTool({ name: 'memory_read_graph', arguments: {} });
    expect(JSON.stringify(graph)).toContain(stamp);
    expect(JSON.stringify(graph)).toContain('made through the gateway');
    expect(readFileSync(file, 'utf8')).toContain(stamp);
  });
});
