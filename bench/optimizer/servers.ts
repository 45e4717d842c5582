/**
 * The real MCP servers whose catalogs make the optimizer's data set: npm
 * package, version, and how each is started to answer `tools/list`
 * (placeholder credentials: listing tools needs none, and nothing here
 * reaches the network). collect-catalogs.ts reads this list.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ServerSource {
  /** The backend name in the bench (the tool prefix). */
  name: string;
  package: string;
  version: string;
  bin?: string;
  args?: string[];
  env?: Record<string, string>;
}

/** Where the catalogs are kept (the source tree, not dist/). */
export const DATA_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bench', 'optimizer', 'data');
export const CATALOGS_DIR = join(DATA_DIR, 'catalogs');

const KEY = 'placeholder-not-a-real-key-0000';

export const SERVERS: ServerSource[] = [
  { name: 'github', package: '@modelcontextprotocol/server-github', version: '2025.4.8', env: { GITHUB_PERSONAL_ACCESS_TOKEN: KEY } },
  { name: 'gitlab', package: '@modelcontextprotocol/server-gitlab', version: '2025.4.25', env: { GITLAB_PERSONAL_ACCESS_TOKEN: KEY } },
  { name: 'slack', package: '@modelcontextprotocol/server-slack', version: '2025.4.25', env: { SLACK_BOT_TOKEN: KEY, SLACK_TEAM_ID: 'T0000000' } },
  { name: 'maps', package: '@modelcontextprotocol/server-google-maps', version: '0.6.2', env: { GOOGLE_MAPS_API_KEY: KEY } },
  { name: 'brave', package: '@modelcontextprotocol/server-brave-search', version: '0.6.2', env: { BRAVE_API_KEY: KEY } },
  { name: 'filesystem', package: '@modelcontextprotocol/server-filesystem', version: '2026.8.31', args: ['$SCRATCH'] },
  { name: 'puppeteer', package: '@modelcontextprotocol/server-puppeteer', version: '2025.5.12' },
  { name: 'postgres', package: '@modelcontextprotocol/server-postgres', version: '0.6.2', args: ['postgresql://localhost:1/none'] },
  {
    name: 'awskb',
    package: '@modelcontextprotocol/server-aws-kb-retrieval',
    version: '0.6.2',
    env: { AWS_ACCESS_KEY_ID: KEY, AWS_SECRET_ACCESS_KEY: KEY, AWS_REGION: 'us-east-1' },
  },
  { name: 'everart', package: '@modelcontextprotocol/server-everart', version: '0.6.2', env: { EVERART_API_KEY: KEY } },
  { name: 'thinking', package: '@modelcontextprotocol/server-sequential-thinking', version: '2026.8.31' },
  { name: 'playwright', package: '@playwright/mcp', version: '0.0.83' },
  { name: 'devtools', package: 'chrome-devtools-mcp', version: '1.11.0' },
  { name: 'desktop', package: '@wonderwhy-er/desktop-commander', version: '0.2.52' },
  { name: 'mongodb', package: 'mongodb-mcp-server', version: '3.0.4' },
  { name: 'k8s', package: 'mcp-server-kubernetes', version: '4.1.7' },
  { name: 'notion', package: '@notionhq/notion-mcp-server', version: '2.5.2', env: { NOTION_TOKEN: KEY } },
  { name: 'circleci', package: '@circleci/mcp-server-circleci', version: '0.20.0', env: { CIRCLECI_TOKEN: KEY } },
  { name: 'eaplaywright', package: '@executeautomation/playwright-mcp-server', version: '1.0.12' },
  { name: 'firecrawl', package: 'firecrawl-mcp', version: '3.26.0', env: { FIRECRAWL_API_KEY: KEY } },
  { name: 'exa', package: 'exa-mcp-server', version: '3.4.1', env: { EXA_API_KEY: KEY } },
  { name: 'tavily', package: 'tavily-mcp', version: '0.2.22', env: { TAVILY_API_KEY: KEY } },
  { name: 'hubspot', package: '@hubspot/mcp-server', version: '0.4.0', env: { PRIVATE_APP_ACCESS_TOKEN: KEY } },
  { name: 'airtable', package: 'airtable-mcp-server', version: '1.14.0', env: { AIRTABLE_API_KEY: KEY } },
  { name: 'context7', package: '@upstash/context7-mcp', version: '4.1.1' },
  { name: 'elastic', package: '@elastic/mcp-server-elasticsearch', version: '0.3.1', env: { ES_URL: 'http://localhost:1', ES_API_KEY: KEY } },
  { name: 'todoist', package: 'todoist-mcp', version: '1.3.4', env: { API_KEY: KEY, TODOIST_API_KEY: KEY } },
  {
    name: 'jira',
    package: '@aashari/mcp-server-atlassian-jira',
    version: '3.3.0',
    env: { ATLASSIAN_SITE_NAME: 'placeholder', ATLASSIAN_USER_EMAIL: 'nobody@example.com', ATLASSIAN_API_TOKEN: KEY },
  },
  { name: 'sentry', package: '@sentry/mcp-server', version: '0.39.0', args: ['--access-token', KEY] },
  { name: 'browserbase', package: '@browserbasehq/mcp-server-browserbase', version: '2.4.3', env: { BROWSERBASE_API_KEY: KEY, BROWSERBASE_PROJECT_ID: KEY } },
  { name: 'memory', package: '@modelcontextprotocol/server-memory', version: '2026.8.31', env: { MEMORY_FILE_PATH: '$SCRATCH/memory.jsonl' } },
  { name: 'everything', package: '@modelcontextprotocol/server-everything', version: '2026.8.31', args: ['stdio'] },
  { name: 'chart', package: '@antv/mcp-server-chart', version: '0.9.10' },
  {
    name: 'gitlab2',
    package: '@zereight/mcp-gitlab',
    version: '2.1.64',
    env: { GITLAB_PERSONAL_ACCESS_TOKEN: KEY, GITLAB_API_URL: 'http://localhost:1/api/v4' },
  },
  { name: 'git', package: '@cyanheads/git-mcp-server', version: '2.15.3' },
  { name: 'browsermcp', package: '@browsermcp/mcp', version: '0.1.3' },
  { name: 'pinecone', package: '@pinecone-database/mcp', version: '0.3.0' },
  { name: 'netlify', package: '@netlify/mcp', version: '1.15.1' },
  { name: 'shopify', package: '@shopify/dev-mcp', version: '1.16.0' },
];
