/**
 * Collects the tool catalogs of real MCP servers for the optimizer's data set:
 * each server package (installed beforehand with npm into its own folder under
 * the directory given, see data/README.md) is started over stdio with
 * placeholder credentials, asked for `tools/list` (every page), and its tools
 * written as published to data/catalogs/<server>.json with the package and version.
 *
 *   node dist/bench/optimizer/collect-catalogs.js /tmp/catalog-pkgs [server name…]
 *
 * Not part of `npm run bench`: the catalogs are committed.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { PASSTHROUGH } from '../../runtime/transports/passthrough-schema.js';
import { CATALOGS_DIR, SERVERS, type ServerSource } from './servers.js';

async function collect(root: string, server: ServerSource): Promise<void> {
  const dir = join(root, `${server.package}@${server.version}`.replace(/[@/]/g, '_'));
  const pkgDir = join(dir, 'node_modules', server.package);
  if (!existsSync(join(pkgDir, 'package.json'))) return void console.log(`skip ${server.name}: ${server.package} is not installed in ${dir}`);
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string; bin?: string | Record<string, string> };
  const bin = typeof pkg.bin === 'string' ? pkg.bin : (pkg.bin?.[server.bin ?? ''] ?? Object.values(pkg.bin ?? {})[0]);
  if (!bin) return void console.log(`skip ${server.name}: no bin`);
  const scratch = mkdtempSync(join(tmpdir(), 'catalog-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(pkgDir, bin), ...(server.args ?? []).map((a) => a.replace('$SCRATCH', scratch))],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: scratch,
      ...Object.fromEntries(Object.entries(server.env ?? {}).map(([k, v]) => [k, v.replace('$SCRATCH', scratch)])),
    },
    cwd: scratch,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'catalog-collector', version: '1.0.0' });
  try {
    await withTimeout(client.connect(transport), 30_000);
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      // As published: not checked against the SDK's schema (one server's tool has an input schema without `type`).
      const page = (await withTimeout(client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, PASSTHROUGH), 30_000)) as {
        tools: Tool[];
        nextCursor?: string;
      };
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    const out = { server: server.name, package: server.package, version: pkg.version, collected: new Date().toISOString().slice(0, 10), tools };
    writeFileSync(join(CATALOGS_DIR, `${server.name}.json`), JSON.stringify(out, null, 2) + '\n');
    console.log(`${server.name}: ${tools.length} tools (${server.package}@${pkg.version})`);
  } catch (err) {
    console.log(`FAILED ${server.name}: ${(err as Error).message}`);
  } finally {
    await client.close().catch(() => undefined);
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms).unref())]);
}

const root = process.argv[2];
if (!root) throw new Error('usage: collect-catalogs.js <folder with the installed server packages>');
const only = process.argv.slice(3);
for (const server of SERVERS) if (only.length === 0 || only.includes(server.name)) await collect(root, server);
process.exit(0);
