/**
 * Tokens of the tools/list answer a client gets, with and without the
 * optimizer, counted with an offline tokenizer (gpt-tokenizer, o200k_base:
 * the encoding of GPT-4o and later): for the example config (a real gateway
 * started from config.yaml, asked over MCP) and for the 648 real tools of the
 * data set (the answer the gateway builds for them, from its route table).
 * Also what one find_tool answer costs, on average over the labelled requests.
 */
import { countTokens } from 'gpt-tokenizer';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Gateway } from '../../app/gateway.js';
import { createLogger } from '../../runtime/observability/logging/logger.js';
import { Redactor } from '../../runtime/observability/logging/redactor.js';
import { buildRouteTable } from '../../runtime/routing/route-table.js';
import { ToolOptimizer } from '../../runtime/optimizer/tool-optimizer.js';
import { ALL_SEARCH_STEPS, DEFAULT_TUNING, ToolIndex } from '../../runtime/optimizer/tool-index.js';
import type { WordVectors } from '../../runtime/optimizer/word-vectors.js';
import { findToolResult } from '../../runtime/optimizer/meta-tools.js';
import { listResultJson } from '../../runtime/transports/json-rpc.js';
import type { Catalog, LabelledRequest } from './dataset.js';
import { exposedTools } from './dataset.js';

export interface TokenRow {
  catalog: string;
  tools: number;
  without_optimizer: number;
  with_optimizer: number;
  saved: string;
}

const tokensOf = (json: string) => countTokens(json);

/** The example config's gateway, asked for tools/list over MCP, optimizer off and on. */
async function exampleConfig(root: string): Promise<TokenRow> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-tokens-'));
  const lists: string[] = [];
  try {
    for (const enabled of [false, true]) {
      const config = parse(readFileSync(join(root, 'config.yaml'), 'utf8')) as Record<string, any>;
      // The example's relative paths are the repository's; the copy lives elsewhere.
      for (const b of Object.values(config.backends as Record<string, { args: string[]; env?: Record<string, string> }>)) {
        b.args = b.args.map((a) => (a.startsWith('node_modules/') ? join(root, a) : a));
        if (b.env) b.env.MEMORY_FILE_PATH = join(dir, 'memory.jsonl');
      }
      Object.assign(config, {
        server: { host: '127.0.0.1', port: 0 },
        audit: { enabled: false },
        containers: { enabled: false },
        optimizer: { enabled },
      });
      const file = join(dir, 'config.yaml');
      writeFileSync(file, stringify(config));
      const redactor = new Redactor();
      const gateway = await Gateway.start({ configPath: file, redactor, logger: createLogger({ level: 'silent', redactor }) });
      const client = new Client({ name: 'bench-tokens', version: '1.0.0' });
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
        lists.push(JSON.stringify(await client.listTools()));
      } finally {
        await client.close();
        await gateway.shutdown(2);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const [off, on] = lists.map(tokensOf);
  return row('example config.yaml (everything + memory)', (JSON.parse(lists[0]) as { tools: unknown[] }).tools.length, off, on);
}

/** The data set's catalogs behind one gateway (conflict strategy prefix): the answer its route table serves. */
function realCatalogs(catalogs: Catalog[]): { row: TokenRow; optimizer: ToolOptimizer } {
  const table = buildRouteTable(
    catalogs.map((c) => ({ name: c.server, spec: {}, catalog: { tools: c.tools, prompts: [], resources: [], resourceTemplates: [] } })),
    { strategy: 'prefix', separator: '_' },
  );
  const source = { routes: table };
  const settings = { enabled: true, keepTools: [], maxResults: 5 };
  const optimizer = new ToolOptimizer(source, { callTool: async () => ({}) }, () => 'default', settings);
  const off = tokensOf(listResultJson('tools', table.lists.tools));
  const on = tokensOf(listResultJson('tools', optimizer.toolsList(table)));
  return { row: row(`${catalogs.length} real servers (data set)`, table.lists.tools.length, off, on), optimizer };
}

function row(catalog: string, tools: number, off: number, on: number): TokenRow {
  return { catalog, tools, without_optimizer: off, with_optimizer: on, saved: `${((100 * (off - on)) / off).toFixed(1)}%` };
}

export async function tokenFigures(
  root: string,
  catalogs: Catalog[],
  requests: LabelledRequest[],
  vectors?: WordVectors,
): Promise<{ rows: TokenRow[]; find_tool_answer_tokens: { mean: number; max: number } }> {
  const rows = [await exampleConfig(root), realCatalogs(catalogs).row];
  const index = new ToolIndex(ALL_SEARCH_STEPS, DEFAULT_TUNING, vectors);
  index.replace(exposedTools(catalogs));
  const answers = requests.map((r) => tokensOf(JSON.stringify(findToolResult(index.search(r.request, { limit: 5 })))));
  return { rows, find_tool_answer_tokens: { mean: Math.round(answers.reduce((a, b) => a + b, 0) / answers.length), max: Math.max(...answers) } };
}
