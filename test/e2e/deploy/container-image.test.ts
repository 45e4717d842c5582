/**
 * Issue 31, item 7: the gateway's image is built and run. The Containerfile
 * is built with real Podman from a Node base made from this host's Node (as
 * `gateway build --base-from-host` makes bases for backends; no registry),
 * with an extra CA given as a build argument and npm taking packages from the
 * host's cache; then run read-only as uid 65532 with a mounted config, its
 * MCP and management ports published on loopback. Over /mcp: initialize,
 * tools/list and a call of a stdio backend from the config, which runs inside
 * the container and reports who it runs as; /manage/v1/health on the
 * management port. Then the container is removed. Needs Podman: fails under
 * CI=true without it.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { repoRoot } from '../../fixtures/spawn.js';
import { skipWithoutPodman, startTestPodman, type TestPodman } from '../../helpers/podman.js';
import { buildBaseFromHost } from '../../../runtime/containers/base-from-host.js';

const ROOT = repoRoot();
const NODE_MAJOR = process.versions.node.split('.')[0]!;
const BASE = `localhost/mcp-gateway-test/image-base:node${process.versions.node}`;
const IMAGE = 'localhost/mcp-gateway-test/gateway:image-test';
const MGMT = randomBytes(32).toString('hex');
const CLIENT = randomBytes(24).toString('hex');
/**
 * A CA certificate the image must trust besides what the base trusted: a fixed one (its key was never kept),
 * so an unchanged tree builds from Podman's layer cache the second time.
 */
const EXTRA_CA = readFileSync(join(ROOT, 'test', 'fixtures', 'image-test-ca.pem'), 'utf8');

/** A stdio MCP backend that runs inside the image with the image's own SDK (the v2 server package), and says who and where it is. */
const PROBE_SERVER = `
const { McpServer } = require('/app/node_modules/@modelcontextprotocol/server/dist/index.cjs');
const { StdioServerTransport } = require('/app/node_modules/@modelcontextprotocol/server/dist/stdio.cjs');
const fs = require('node:fs');
const server = new McpServer({ name: 'probe', version: '1.0.0' });
server.registerTool('whoami', { description: 'uid, Node version and whether / is writable' }, async () => {
  let rootWritable = true;
  try { fs.writeFileSync('/probe-write-test', 'x'); } catch { rootWritable = false; }
  const ca = fs.readFileSync('/usr/local/share/mcp-gateway/ca.pem', 'utf8');
  const text = JSON.stringify({ uid: process.getuid(), gid: process.getgid(), node: process.version, rootWritable, extraCa: ca });
  return { content: [{ type: 'text', text }] };
});
server.connect(new StdioServerTransport());
`;

/**
 * `podman <args>`, awaited, with its output (a build prints a lot and takes a while). Secrets go in `env`,
 * named by `--env NAME` in the arguments: never a value on a command line.
 */
function podman(p: TestPodman, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('podman', [...p.cliArgs, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.once('close', (code) => resolve({ code, out }));
  });
}

async function must(p: TestPodman, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = await podman(p, args, env);
  if (r.code !== 0) throw new Error(`podman ${args.join(' ')} exited ${r.code}:\n${r.out.slice(-4000)}`);
  return r.out;
}

/** Resolves once the management API says it is ready (its backend connected); the container's log when it never is. */
async function untilReady(p: TestPodman, container: string, url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const state = (await must(p, ['inspect', '--format', '{{.State.Status}}', container])).trim();
    if (state !== 'running') throw new Error(`the container is ${state}:\n${(await podman(p, ['logs', container])).out}`);
    const ok = await fetch(`${url}/manage/v1/ready`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`not ready within 60 s:\n${(await podman(p, ['logs', container])).out}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe.skipIf(skipWithoutPodman)('the gateway image (Containerfile), built from a host-made base and run read-only', () => {
  let p: TestPodman;
  const container = `mcp-gateway-image-test-${process.pid}`;
  let mcpUrl: string;
  let managementUrl: string;

  beforeAll(async () => {
    p = await startTestPodman();
    await buildBaseFromHost(p.runtime, BASE);
    const started = performance.now();
    await must(p, [
      'build',
      '--file',
      join(ROOT, 'Containerfile'),
      '--build-arg',
      `BASE_IMAGE=${BASE}`,
      '--build-arg',
      `EXTRA_CA_CERTS=${EXTRA_CA}`,
      // npm takes what it can from the host's cache (CI has just filled it with `npm ci`).
      '--volume',
      `${join(homedir(), '.npm')}:/root/.npm`,
      '--tag',
      IMAGE,
      ROOT,
    ]);
    console.log(`podman build of the Containerfile: ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const dir = mkdtempSync(join(tmpdir(), 'gw-image-'));
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'probe-server.cjs'), PROBE_SERVER);
    writeFileSync(
      join(dir, 'config.yaml'),
      stringify({
        server: { host: '0.0.0.0', port: 9000, management: { port: 9001 } },
        incoming_auth: { type: 'local', tokens: [{ name: 'image-test', token: '${MCP_CLIENT_TOKEN}' }] },
        audit: { file: '/var/lib/mcp-gateway/audit.jsonl' },
        containers: { enabled: false },
        backends: { probe: { type: 'stdio', command: 'node', args: ['/etc/mcp-gateway/probe-server.cjs'] } },
      }),
    );
    for (const f of ['config.yaml', 'probe-server.cjs']) chmodSync(join(dir, f), 0o644);
    await must(
      p,
      [
        'run',
        '--detach',
        '--name',
        container,
        '--read-only',
        '--user',
        '65532:65532',
        '--cap-drop',
        'ALL',
        // Explicit, as a pod spec has them: Podman's default open-files limit is above what this host allows.
        '--ulimit',
        'nofile=8192:8192',
        '--ulimit',
        'nproc=4096:4096',
        '--volume',
        `${dir}:/etc/mcp-gateway:ro`,
        '--env',
        'GATEWAY_MGMT_TOKEN',
        '--env',
        'MCP_CLIENT_TOKEN',
        '--publish',
        '127.0.0.1::9000',
        '--publish',
        '127.0.0.1::9001',
        IMAGE,
      ],
      { GATEWAY_MGMT_TOKEN: MGMT, MCP_CLIENT_TOKEN: CLIENT },
    );
    const port = async (inner: number) => /:(\d+)\s*$/.exec((await must(p, ['port', container, `${inner}/tcp`])).trim())![1];
    mcpUrl = `http://127.0.0.1:${await port(9000)}`;
    managementUrl = `http://127.0.0.1:${await port(9001)}`;
    await untilReady(p, container, managementUrl);
  }, 900_000);

  afterAll(async () => {
    if (!p) return;
    await podman(p, ['rm', '--force', '--volumes', container]);
    await p.stop();
  }, 60_000);

  it('runs as uid 65532 with a read-only root; the stdio backend from the config runs inside it, on Node of the project', async () => {
    const inspect = JSON.parse(await must(p, ['inspect', container]))[0];
    expect(inspect.HostConfig.ReadonlyRootfs).toBe(true);
    expect(inspect.Config.User).toBe('65532:65532');
    // The gateway (and what it starts with its environment) trusts the bundle the build wrote.
    expect(inspect.Config.Env).toContain('NODE_EXTRA_CA_CERTS=/usr/local/share/mcp-gateway/ca.pem');

    const client = new Client({ name: 'image-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${mcpUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${CLIENT}` } } }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['probe_whoami']);
      const result = await client.callTool({ name: 'probe_whoami', arguments: {} });
      const who = JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
      expect(who).toMatchObject({ uid: 65532, gid: 65532, rootWritable: false });
      expect(who.node.split('.')[0]).toBe(`v${NODE_MAJOR}`);
      // The extra CA of the build argument is trusted, beside what the base trusted.
      expect(who.extraCa).toContain(EXTRA_CA.trim());
    } finally {
      await client.close();
    }
  });

  it('serves /mcp only with a client token, and the management API on its own port', async () => {
    const anonymous = await fetch(`${mcpUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(anonymous.status).toBe(401);
    const health = await fetch(`${managementUrl}/manage/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ backends: { total: 1, connected: 1 } });
    expect((await fetch(`${managementUrl}/manage/v1/status`)).status).toBe(401);
    expect((await fetch(`${managementUrl}/manage/v1/status`, { headers: { authorization: `Bearer ${MGMT}` } })).status).toBe(200);
    expect((await fetch(`${mcpUrl}/manage/v1/health`)).status).toBe(404);
  });

  it('is removed at the end, and its image holds no test secret', async () => {
    const history = await must(p, ['history', '--no-trunc', '--format', '{{.CreatedBy}}', IMAGE]);
    expect(history).not.toContain(MGMT);
    expect(history).not.toContain(CLIENT);
    await must(p, ['rm', '--force', '--volumes', container]);
    expect((await podman(p, ['container', 'exists', container])).code).toBe(1);
  });
});
