/**
 * Relative paths in the config are relative to the config file's folder,
 * wherever the gateway is started from: stdio `command` and `cwd` (whose
 * default is that folder, so relative `args` name files beside the config),
 * `audit.file`, `logging.file`, `skills.directory`, `containers.socket`; the
 * container plan uses the same folder. End to end: the real `gateway server`
 * started in another directory serves tools of backends launched by relative
 * paths.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { stringify } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadConfigFile, parseConfigText } from '../../../controller/config/config-loader.js';
import type { StdioBackendSpec } from '../../../schemas/config.js';
import { planImage } from '../../../runtime/containers/image-plan.js';
import { fixtureMainPath } from '../../fixtures/spawn.js';
import { startGatewayCli, type GatewayProcess } from '../../helpers/gateway-cli.js';
import { waitFor } from '../../helpers/wait.js';

const tempDir = (prefix: string) => realpathSync(mkdtempSync(join(tmpdir(), prefix)));

describe('config: relative paths are relative to the config file', () => {
  const dir = tempDir('gw-relpaths-');
  const file = join(dir, 'sub', 'gateway.yaml');
  mkdirSync(join(dir, 'sub'));
  writeFileSync(
    file,
    `backends:
  plain: { type: stdio, command: node, args: [server.js] }
  scripted: { type: stdio, command: ./bin/run.sh, cwd: work, args: [../server.js] }
  pinned: { type: stdio, command: /usr/bin/env, cwd: /tmp }
  web: { type: sse, url: http://127.0.0.1:1/sse }
audit: { file: trail/audit.jsonl }
logging: { file: ../gateway.log }
skills: { directory: my-skills }
containers: { socket: run/podman.sock }
`,
  );
  const cfg = loadConfigFile(file).config;
  const stdio = (name: string) => cfg.backends[name] as StdioBackendSpec;
  const sub = join(dir, 'sub');

  it('makes every relative path absolute against the config folder; bare commands and absolute paths stay', () => {
    expect(stdio('plain')).toMatchObject({ command: 'node', cwd: sub, args: ['server.js'] });
    expect(stdio('scripted')).toMatchObject({ command: join(sub, 'bin', 'run.sh'), cwd: join(sub, 'work'), args: ['../server.js'] });
    expect(stdio('pinned')).toMatchObject({ command: '/usr/bin/env', cwd: '/tmp' });
    expect(cfg.audit.file).toBe(join(sub, 'trail', 'audit.jsonl'));
    expect(cfg.logging.file).toBe(join(dir, 'gateway.log'));
    expect(cfg.skills.directory).toBe(join(sub, 'my-skills'));
    expect(cfg.containers.socket).toBe(join(sub, 'run', 'podman.sock'));
  });

  it('the default audit file is beside the config; a socket URL is kept as written', () => {
    const other = join(dir, 'other.yaml');
    writeFileSync(other, 'containers: { socket: "unix:///run/x.sock" }\n');
    const loaded = loadConfigFile(other).config;
    expect(loaded.audit.file).toBe(join(dir, 'logs', 'audit.jsonl'));
    expect(loaded.containers.socket).toBe('unix:///run/x.sock');
  });

  it('the container plan works in the same folder, whatever the working directory: scripts and a command of that folder are mounted', () => {
    mkdirSync(join(sub, 'bin'));
    writeFileSync(join(sub, 'server.js'), '');
    writeFileSync(join(sub, 'bin', 'run.sh'), '#!/bin/sh\n');
    const containers = parseConfigText('').containers;
    // The working directory passed in is somewhere else entirely: the plan must not depend on it.
    const elsewhere = tempDir('gw-elsewhere-');
    const node = planImage('plain', stdio('plain'), containers, elsewhere);
    expect(node.run.workdir).toBe(sub);
    expect(node.run.mounts.map((m) => m.path)).toEqual([sub]);
    const scripted = planImage('scripted', { ...stdio('scripted'), cwd: sub, args: [] }, containers, elsewhere);
    expect(scripted.run.cmd[0]).toBe(join(sub, 'bin', 'run.sh'));
    expect(scripted.run.mounts.map((m) => m.path)).toEqual([join(sub, 'bin')]);
    // A command outside the backend's folder comes from the image, never from a host mount.
    expect(planImage('pinned', stdio('pinned'), containers, elsewhere).run.mounts).toEqual([]);
  });
});

describe('gateway server started in another directory', { timeout: 60_000 }, () => {
  let gw: GatewayProcess | undefined;
  afterAll(async () => {
    await gw?.stop();
  });

  it('launches backends by relative command, cwd and args, writes the audit beside the config, and serves their tools', async () => {
    const dir = tempDir('gw-relcfg-');
    mkdirSync(join(dir, 'bin'));
    mkdirSync(join(dir, 'work'));
    // The launcher notes where it was started, then runs node with the arguments it was given.
    const launcher = join(dir, 'bin', 'launch.sh');
    writeFileSync(launcher, `#!/bin/sh\npwd > started-in.txt\nexec "${process.execPath}" "$@"\n`);
    chmodSync(launcher, 0o755);
    const fromConfig = relative(dir, fixtureMainPath());
    const fromWork = relative(join(dir, 'work'), fixtureMainPath());
    writeFileSync(
      join(dir, 'config.yaml'),
      stringify({
        containers: { enabled: false },
        audit: { file: 'logs/audit.jsonl' },
        logging: { file: 'logs/gateway.log' },
        backends: {
          home: { type: 'stdio', command: 'bin/launch.sh', args: [fromConfig, '--transport', 'stdio', '--name', 'home'] },
          worker: { type: 'stdio', command: './bin/launch.sh', cwd: 'work', args: [fromWork, '--transport', 'stdio', '--name', 'worker'] },
        },
      }),
    );
    const elsewhere = tempDir('gw-start-here-');
    gw = await startGatewayCli({ args: ['--config', join(dir, 'config.yaml'), '--port', '0'], cwd: elsewhere });

    const client = new Client({ name: 'relpaths', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
    try {
      await waitFor(async () => (await client.listTools()).tools.some((t) => t.name === 'worker_echo'), 'both backends to serve');
      const text = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0].text;
      expect(text(await client.callTool({ name: 'home_echo', arguments: { text: 'hi' } }))).toContain('hi');
      expect(JSON.parse(text(await client.callTool({ name: 'worker_whoami', arguments: {} }))).name).toBe('worker');
    } finally {
      await client.close();
    }
    expect(readFileSync(join(dir, 'started-in.txt'), 'utf8').trim()).toBe(dir);
    expect(readFileSync(join(dir, 'work', 'started-in.txt'), 'utf8').trim()).toBe(join(dir, 'work'));
    await waitFor(
      () => existsSync(join(dir, 'logs', 'audit.jsonl')) && readFileSync(join(dir, 'logs', 'audit.jsonl'), 'utf8').includes('home_echo'),
      'the audit record',
    );
    await waitFor(() => existsSync(join(dir, 'logs', 'gateway.log')), 'the log file');
    expect(existsSync(join(elsewhere, 'logs'))).toBe(false);
    expect(existsSync(join(elsewhere, 'started-in.txt'))).toBe(false);
  });
});
