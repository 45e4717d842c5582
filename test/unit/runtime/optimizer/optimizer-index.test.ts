/**
 * The optimizer's index and list logic without a gateway: how names and
 * queries are split, stemmed and expanded, what the caller may see, updates in
 * place, the closest names of an unknown one, and the tool list clients are
 * shown (kept tools, list_changed only when it changes).
 */
import { describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/client';
import { splitWords } from '../../../../runtime/optimizer/text-analysis.js';
import { expansionsOf } from '../../../../runtime/optimizer/synonyms.js';
import { ToolIndex, type IndexedTool } from '../../../../runtime/optimizer/tool-index.js';
import { ToolOptimizer } from '../../../../runtime/optimizer/tool-optimizer.js';
import { buildRouteTable, type RouteTable } from '../../../../runtime/routing/route-table.js';
import { ToolNotFoundError } from '../../../../schemas/errors.js';

const tool = (name: string, description: string, properties: Record<string, { description?: string }> = {}): Tool => ({
  name,
  description,
  inputSchema: { type: 'object', properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, { type: 'string', ...v }])) },
});

const entry = (backend: string, t: Tool, group = 'default'): IndexedTool => ({
  name: `${backend}_${t.name}`,
  tool: { ...t, name: `${backend}_${t.name}` },
  backend,
  group,
});

const CATALOG: IndexedTool[] = [
  entry('github', tool('create_issue', 'Create a new issue in a GitHub repository', { title: {}, body: {} })),
  entry('github', tool('list_pull_requests', 'List pull requests in a GitHub repository')),
  entry('maps', tool('maps_elevation', 'Get the elevation data for locations on the earth', { locations: { description: 'Points to look up' } }), 'geo'),
  entry('maps', tool('maps_directions', 'Get directions between two points')),
  entry('fs', tool('delete_file', 'Delete a file from disk', { path: {} })),
  entry('fs', tool('readMultipleFiles', 'Read the contents of several files at once')),
  entry('k8s', tool('kubectl-logs', 'Get logs from pods or deployments')),
];

const names = (index: ToolIndex, q: string, limit = 5) => index.search(q, { limit }).map((m) => m.name);

describe('text analysis', () => {
  it('splits names the ways tools write them', () => {
    expect(splitWords('github_create_issue')).toEqual(['github', 'create', 'issue']);
    expect(splitWords('readMultipleFiles')).toEqual(['read', 'multiple', 'files']);
    expect(splitWords('kubectl-logs')).toEqual(['kubectl', 'logs']);
    expect(splitWords('API-get.user HTTPServer')).toEqual(['api', 'get', 'user', 'http', 'server']);
  });

  it('expands a word of one group of the synonym table, not a word of two', () => {
    expect(expansionsOf('remov')).toContain('delet'); // remove → delete (stems)
    expect(expansionsOf('high')).toContain('elev');
    expect(expansionsOf('start')).toEqual([]); // create or run: ambiguous
  });
});

describe('ToolIndex', () => {
  const index = new ToolIndex();
  index.replace(CATALOG);

  it('finds by stems, prefixes, typos, argument texts, the backend and its group', () => {
    expect(names(index, 'creating issues')[0]).toBe('github_create_issue');
    expect(names(index, 'crea iss')[0]).toBe('github_create_issue');
    expect(names(index, 'directons')[0]).toBe('maps_maps_directions');
    expect(names(index, 'points to look up')).toContain('maps_maps_elevation');
    expect(names(index, 'geo')).toEqual(['maps_maps_elevation']);
    expect(names(index, 'multiple files')[0]).toBe('fs_readMultipleFiles');
  });

  it('finds through related words: "how high above sea level" is elevation, "remove" is delete', () => {
    expect(names(index, 'how high above sea level is Denver?')[0]).toBe('maps_maps_elevation');
    expect(names(index, 'remove this file')[0]).toBe('fs_delete_file');
  });

  it('returns nothing for a query of stop words or unknown words, and at most the limit', () => {
    expect(index.search('how is it', { limit: 5 })).toEqual([]);
    expect(index.search('xylophone', { limit: 5 })).toEqual([]);
    expect(index.search('get', { limit: 2 })).toHaveLength(2);
  });

  it('answers with the tool as it is: description, input schema, backend; best first', () => {
    const [m] = index.search('elevation', { limit: 1 });
    expect(m).toMatchObject({
      name: 'maps_maps_elevation',
      backend: 'maps',
      description: CATALOG[2].tool.description,
      inputSchema: CATALOG[2].tool.inputSchema,
    });
    const scores = index.search('get', { limit: 5 }).map((x) => x.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('finds only what the caller may see', () => {
    const visible = (name: string) => !name.startsWith('maps_');
    expect(index.search('elevation directions', { limit: 5, visible })).toEqual([]);
    expect(index.closestNames('maps_elevaton', 3, visible)).not.toContain('maps_maps_elevation');
  });

  it('suggests the closest names for a typo or a missing prefix', () => {
    expect(index.closestNames('github_create_isue', 3)[0]).toBe('github_create_issue');
    expect(index.closestNames('create_issue', 3)[0]).toBe('github_create_issue');
  });

  it('updates in place: a changed description is searched anew, a removed tool is gone, the rest stay', () => {
    const local = new ToolIndex();
    local.replace(CATALOG);
    const changed = CATALOG.filter((t) => t.name !== 'fs_delete_file').map((t) =>
      t.name === 'k8s_kubectl-logs' ? { ...t, tool: { ...t.tool, description: 'Stream container output of a workload' } } : t,
    );
    local.replace(changed);
    expect(local.size).toBe(CATALOG.length - 1);
    expect(names(local, 'delete file')).not.toContain('fs_delete_file');
    expect(names(local, 'stream container output')[0]).toBe('k8s_kubectl-logs');
    expect(names(local, 'creating issues')[0]).toBe('github_create_issue');
  });
});

describe('ToolOptimizer: the list clients see', () => {
  const table = (tools: Tool[]): RouteTable =>
    buildRouteTable([{ name: 'b', spec: {}, catalog: { tools, prompts: [], resources: [], resourceTemplates: [] } }], { strategy: 'prefix', separator: '_' });
  const settings = { enabled: true, keepTools: ['b_memory_*'], maxResults: 5 };

  function optimizerOver(first: RouteTable) {
    const source = { routes: first };
    return { source, optimizer: new ToolOptimizer(source, { callTool: () => Promise.reject(new ToolNotFoundError('x')) }, () => 'default', settings) };
  }

  it('lists find_tool, call_tool and the kept tools; filters the kept tools by what the caller may see', () => {
    const t = table([tool('memory_read', 'Read memory'), tool('echo', 'Echo')]);
    const { optimizer } = optimizerOver(t);
    expect(optimizer.toolsList(t).map((x) => x.name)).toEqual(['find_tool', 'call_tool', 'b_memory_read']);
    expect(optimizer.toolsList(t, () => false).map((x) => x.name)).toEqual(['find_tool', 'call_tool']);
  });

  it('tells clients of a tool list change only when what they see changed', () => {
    const first = table([tool('memory_read', 'Read memory'), tool('echo', 'Echo')]);
    const { optimizer } = optimizerOver(first);
    const tools = new Set(['tools'] as const);
    expect(optimizer.visibleChanges(tools, table([tool('memory_read', 'Read memory'), tool('echo', 'Echo'), tool('add', 'Add')]))).toEqual(new Set());
    expect(optimizer.visibleChanges(tools, table([tool('memory_read', 'Read memory'), tool('memory_write', 'Write memory')]))).toEqual(tools);
    let told = 0;
    optimizer.on('toolsListChanged', () => told++);
    optimizer.configure({ ...settings, keepTools: [] });
    optimizer.configure({ ...settings, keepTools: [] });
    expect(told).toBe(1);
    optimizer.configure({ ...settings, enabled: false });
    expect(told).toBe(2);
    expect(optimizer.handles('find_tool')).toBe(false);
  });

  it('searches the newest route table, even before its scheduled update, also when it changes during an update', async () => {
    const { source, optimizer } = optimizerOver(table([tool('echo', 'Echo')]));
    expect(await optimizer.search('gizmo')).toEqual([]);
    const routes = source as { routes: RouteTable };
    routes.routes = table([tool('echo', 'Echo'), tool('gizmo', 'Reticulates a gizmo')]);
    const during = optimizer.search('gizmo');
    // A newer table while that update runs: the search answers from the newest.
    routes.routes = table([tool('gizmo', 'Reticulates a gizmo'), tool('widget', 'Frobs a widget')]);
    expect((await during).map((m) => m.name)).toEqual(['b_gizmo']);
    expect((await optimizer.search('widget')).map((m) => m.name)).toEqual(['b_widget']);
  });

  it('a chunked build answers like a direct one', async () => {
    const direct = new ToolIndex();
    direct.replace(CATALOG);
    const chunked = new ToolIndex();
    await chunked.replaceInChunks(CATALOG);
    for (const q of ['creating issues', 'how high above sea level', 'remove this file'])
      expect(chunked.search(q, { limit: 5 })).toEqual(direct.search(q, { limit: 5 }));
  });
});
