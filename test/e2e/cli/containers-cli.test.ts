/**
 * The container commands on real Podman, with storage of their own (so that
 * `clean --all` can be checked to leave nothing labelled without touching
 * other tests' images): `gateway build [--base-from-host]`, `gateway clean
 * [--all]`, and the `containers` / `pods` command functions over libpod.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Writable } from 'node:stream';
import { ContainerManager } from '../../../runtime/containers/container-manager.js';
import { MANAGED_LABEL, OWNER_LABEL, managedLabels, BACKEND_LABEL } from '../../../runtime/containers/labels.js';
import { currentOwner, formatOwner } from '../../../runtime/containers/owner.js';
import { runContainersCommand } from '../../../cli/containers/containers-command.js';
import { runPodsCommand } from '../../../cli/containers/pods-command.js';
import { cliPath } from '../../helpers/gateway-cli.js';
import { CLIENT_BIN, runBin } from '../../helpers/cli-run.js';
import { ensureTestBase, podmanCli, skipWithoutPodman, startTestPodman, TEST_NODE_BASE, type TestPodman } from '../../helpers/podman.js';
import { collector, connectClient, hardeningFixture, inContainer, placeBackend, testContainersConfig } from '../../helpers/container-backends.js';
import { waitFor } from '../../helpers/wait.js';

const run = promisify(execFile);
const LONG = 240_000;

/** Runs `gateway <args>`; resolves with the exit code and output whatever the code. */
async function gateway(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cliPath(), ...args], { encoding: 'utf8', timeout: LONG });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe.skipIf(skipWithoutPodman)('container commands', () => {
  let podman: TestPodman;
  let dir: string;
  let configFile: string;

  beforeAll(async () => {
    podman = await startTestPodman({ isolated: true });
    dir = mkdtempSync(join(tmpdir(), 'gateway-build-'));
    configFile = join(dir, 'config.yaml');
    writeFileSync(
      configFile,
      [
        'backends:',
        '  report:',
        '    type: stdio',
        `    command: ${process.execPath}`,
        `    args: [${JSON.stringify(hardeningFixture())}]`,
        '  remote:',
        '    type: streamable-http',
        '    url: http://127.0.0.1:1/mcp',
        'containers:',
        `  socket: ${podman.socket}`,
        `  base_images: { node: ${TEST_NODE_BASE} }`,
        '',
      ].join('\n'),
    );
  }, LONG);

  afterAll(async () => {
    await podman?.stop();
  });

  it(
    'gateway build --base-from-host makes the Node base from this host, builds every stdio backend, then finds them up to date',
    async () => {
      const first = await gateway(['build', '--config', configFile, '--base-from-host']);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(new RegExp(`Made the Node base image ${TEST_NODE_BASE} from this host \\(Node\\.js ${process.version} from .*node`));
      expect(first.stdout).toMatch(/report \| STEP 1\/\d+: FROM /);
      expect(first.stdout).toMatch(/report: built localhost\/mcp-gateway\/report:[0-9a-f]{16} in [\d.]+ s/);
      expect(first.stdout).not.toContain('remote');
      expect(first.stdout).toContain('All images are ready.');
      const base = JSON.parse(podmanCli(podman, ['image', 'inspect', TEST_NODE_BASE]))[0];
      expect(base.Config.Labels).toMatchObject({ [MANAGED_LABEL]: 'true', 'mcp-gateway.base-source': `host-node ${process.version}` });

      const again = await gateway(['build', '--config', configFile, '--base-from-host']);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain(`The Node base image ${TEST_NODE_BASE} made from this host is up to date`);
      expect(again.stdout).toMatch(/report: localhost\/mcp-gateway\/report:[0-9a-f]{16} is up to date/);
      expect(again.stdout).not.toContain('STEP');
    },
    LONG,
  );

  it(
    'gateway build refuses an unknown or non-stdio backend and exits 1 when a build fails',
    async () => {
      expect(await gateway(['build', '--config', configFile, '--backend', 'nope'])).toMatchObject({ code: 1, stderr: 'Unknown backend: nope\n' });
      expect((await gateway(['build', '--config', configFile, '--backend', 'remote'])).stderr).toMatch(/streamable-http: only stdio backends/);
      const broken = join(dir, 'broken.yaml');
      writeFileSync(
        broken,
        `backends:\n  x: { type: stdio, command: node, args: [a.js] }\ncontainers:\n  socket: ${podman.socket}\n  base_images: { node: absent.invalid/base:1 }\n`,
      );
      const failed = await gateway(['build', '--config', broken]);
      expect(failed.code).toBe(1);
      expect(failed.stdout).toMatch(/x: FAILED: base image absent\.invalid\/base:1 is neither present nor pullable .*gateway build --base-from-host/);
      const noRuntime = join(dir, 'no-runtime.yaml');
      writeFileSync(noRuntime, `backends: {}\ncontainers: { socket: ${join(dir, 'absent.sock')} }\n`);
      expect((await gateway(['build', '--config', noRuntime])).stderr).toMatch(/^Cannot build: no container runtime answered; tried .*absent\.sock \(absent\)/);
    },
    LONG,
  );

  it(
    'containers and pods commands list, inspect, show logs, stop and remove over the libpod API',
    async () => {
      await ensureTestBase(podman.runtime); // made by the build test already, unless run alone
      const manager = ContainerManager.create(testContainersConfig(podman.socket), { runtime: podman.runtime });
      const prepared = inContainer(await placeBackend(manager, 'report', { type: 'stdio', command: process.execPath, args: [hardeningFixture()] }));
      const client = await connectClient(prepared.transport);
      const name = (await podman.runtime.docker.getContainer(prepared.transport.container!.id).inspect()).Name.replace(/^\//, '');

      const list = collector();
      expect(await runContainersCommand({ action: 'list', socket: podman.socket }, list.stream)).toBe(0);
      expect(list.text()).toMatch(/^NAME +ID +IMAGE +STATE +BACKEND +POD\n/);
      expect(list.text()).toMatch(new RegExp(`${name} +[0-9a-f]{12} +localhost/mcp-gateway/report:[0-9a-f]{16} +running +report`));

      const inspect = collector();
      expect(await runContainersCommand({ action: 'inspect', name, socket: podman.socket }, inspect.stream)).toBe(0);
      expect(JSON.parse(inspect.text())).toMatchObject({ Id: prepared.transport.container!.id, Config: { Labels: { [BACKEND_LABEL]: 'report' } } });

      const logs = collector();
      const ac = new AbortController();
      const following = runContainersCommand({ action: 'logs', name, follow: true, socket: podman.socket, signal: ac.signal }, logs.stream);
      await waitFor(() => logs.text().includes('hardening-report: serving stdio as uid 65532'), 'the server’s stderr line in the logs');
      ac.abort();
      expect(await following).toBe(0);
      // By default only the container's stderr: its stdout is the MCP traffic, tool results included.
      expect(logs.text()).not.toContain('"jsonrpc"');
      const withStdout = collector();
      expect(await runContainersCommand({ action: 'logs', name, stdout: true, socket: podman.socket }, withStdout.stream)).toBe(0);
      expect(withStdout.text()).toContain('hardening-report: serving stdio as uid 65532');
      expect(withStdout.text()).toContain('"jsonrpc":"2.0"');

      // As a program: `containers logs NAME --stdout | head` ends quietly when the reader is gone.
      const piped = await runBin(CLIENT_BIN, ['containers', 'logs', name, '--stdout', '--socket', podman.socket], { closeStdout: true });
      expect(piped).toMatchObject({ code: 0, stderr: '' });

      // No --socket: containers.socket of the config is tried first, as the gateway does; with nothing else to discover.
      const state = mkdtempSync(join(tmpdir(), 'gw-containers-state-'));
      const nothingToDiscover = { GATEWAY_STATE_DIR: state, XDG_RUNTIME_DIR: mkdtempSync(join(tmpdir(), 'gw-xdg-')), DOCKER_HOST: '', CONTAINER_HOST: '' };
      const listed = new RegExp(`\\n${name} +[0-9a-f]{12} `);
      const byFlag = await runBin(CLIENT_BIN, ['containers', 'list', '-c', configFile], { env: nothingToDiscover });
      expect(byFlag.stderr).toBe('');
      expect(byFlag.stdout).toMatch(listed);
      // Without --config: the config of the local gateway session gateway-client would talk to.
      mkdirSync(join(state, 'sessions'));
      const session = {
        name: 'default',
        pid: process.pid,
        host: '127.0.0.1',
        port: 1,
        config: configFile,
        log_file: null,
        started_at: new Date().toISOString(),
      };
      writeFileSync(join(state, 'sessions', 'default.json'), JSON.stringify(session));
      const bySession = await runBin(CLIENT_BIN, ['containers', 'list', '-o', 'json'], { env: nothingToDiscover });
      expect(bySession.stderr).toBe('');
      expect(JSON.parse(bySession.stdout).map((c: { Names: string[] }) => c.Names[0])).toContain(name);

      const stop = collector();
      expect(await runContainersCommand({ action: 'stop', name, timeout: 1, socket: podman.socket }, stop.stream)).toBe(0);
      expect(stop.text()).toBe(`Stopped ${name}\n`);
      await client.close();

      const missing = collector();
      expect(await runContainersCommand({ action: 'remove', name: 'no-such-container', socket: podman.socket }, missing.stream)).toBe(1);
      expect(missing.text().trim().split('\n')).toHaveLength(1);
      expect(missing.text()).toMatch(/no such container/i);

      podmanCli(podman, ['pod', 'create', '--name', 'gateway-test-pod']);
      const pods = collector();
      expect(await runPodsCommand({ action: 'list', socket: podman.socket }, pods.stream)).toBe(0);
      expect(pods.text()).toMatch(/^NAME +ID +STATUS +CONTAINERS\ngateway-test-pod +[0-9a-f]{12} +\w+ +1\n$/);
      const podInspect = collector();
      expect(await runPodsCommand({ action: 'inspect', name: 'gateway-test-pod', socket: podman.socket }, podInspect.stream)).toBe(0);
      expect(JSON.parse(podInspect.text())).toMatchObject({ Name: 'gateway-test-pod' });
      const podStop = collector();
      expect(await runPodsCommand({ action: 'stop', name: 'gateway-test-pod', socket: podman.socket }, podStop.stream)).toBe(0);
      const podRemove = collector();
      expect(await runPodsCommand({ action: 'remove', name: 'gateway-test-pod', force: true, socket: podman.socket }, podRemove.stream)).toBe(0);
      expect(podRemove.text()).toBe('Removed pod gateway-test-pod\n');
      const none = collector();
      await runPodsCommand({ action: 'list', socket: podman.socket }, none.stream);
      expect(none.text()).toBe('No pods.\n');
    },
    LONG,
  );

  it('containers and pods say in one line that no socket answered, and exit 1', async () => {
    for (const command of [
      (out: Writable) => runContainersCommand({ action: 'list', socket: join(dir, 'none.sock') }, out),
      (out: Writable) => runPodsCommand({ action: 'list', socket: join(dir, 'none.sock') }, out),
    ]) {
      const out = collector();
      expect(await command(out.stream)).toBe(1);
      expect(out.text()).toMatch(/^no Podman API socket answered; tried unix:\/\/.*none\.sock \(absent\)\n$/);
    }
  });

  it(
    'gateway clean removes leftovers by label and keeps a running gateway’s containers; --all leaves nothing labelled',
    async () => {
      await ensureTestBase(podman.runtime);
      // A leftover of a gateway that died (its owner pid is gone) and a container of a live gateway (this process).
      const dead = formatOwner({ ...currentOwner(), pid: 999_999 });
      const leftover = await podman.runtime.docker.createContainer({
        Image: TEST_NODE_BASE,
        Cmd: ['node', '-e', 'setInterval(() => {}, 1000)'],
        Labels: managedLabels({ [BACKEND_LABEL]: 'old', [OWNER_LABEL]: dead }),
        HostConfig: {
          Ulimits: [
            { Name: 'nofile', Soft: 1024, Hard: 1024 },
            { Name: 'nproc', Soft: 1024, Hard: 1024 },
          ],
        },
      });
      await leftover.start();
      const unrelated = await podman.runtime.docker.createContainer({ Image: TEST_NODE_BASE, Cmd: ['node', '-e', '0'], name: 'mcp-gateway-not-ours' });
      const manager = ContainerManager.create(testContainersConfig(podman.socket), { runtime: podman.runtime });
      const live = inContainer(
        await placeBackend(manager, 'report', { type: 'stdio', command: process.execPath, args: [hardeningFixture()], container: { network: 'bridge' } }),
      );
      const client = await connectClient(live.transport);

      const clean = await gateway(['clean', '--config', configFile]);
      expect(clean.code, clean.stdout + clean.stderr).toBe(0);
      expect(clean.stdout).toMatch(/Removed container \S+ \(backend old\)/);
      expect(clean.stdout).toMatch(/Kept container mcp-gateway-report-\w+: in use by the running gateway/);
      const labelled = () => podmanCli(podman, ['ps', '-a', '--filter', `label=${OWNER_LABEL}`, '--format', '{{.Labels}}']);
      expect(labelled()).not.toContain(dead);
      // Selection is by label, never by name: a look-alike name (made from a labelled image, but not by a gateway) is not touched.
      expect(podmanCli(podman, ['ps', '-a', '--format', '{{.Names}}'])).toContain('mcp-gateway-not-ours');

      const cleanAll = await gateway(['clean', '--all', '--config', configFile]);
      expect(cleanAll.code, cleanAll.stdout + cleanAll.stderr).toBe(0);
      expect(cleanAll.stdout).toMatch(/Kept image localhost\/mcp-gateway\/report:\w+: used by a container/);
      expect(cleanAll.stdout).toContain('Kept network mcp-gateway: used by a container');
      await client.close();
      // It was made from the base image: until it goes, the base is in use.
      await unrelated.remove({ force: true });
      // Closing the client stops the live container; its removal finishes a moment later (slowly on a loaded machine).
      await waitFor(
        () => podmanCli(podman, ['ps', '-a', '--filter', `label=${OWNER_LABEL}`, '--format', '{{.ID}}']).trim() === '',
        'the live container to go',
        120_000,
      );

      const final = await gateway(['clean', '--all', '--config', configFile]);
      expect(final.code, final.stdout + final.stderr).toBe(0);
      expect(final.stdout).toMatch(/Removed image localhost\/mcp-gateway\/report:\w+ \(backend report\)/);
      expect(final.stdout).toContain(`Removed image ${TEST_NODE_BASE}`);
      expect(final.stdout).toContain('Removed network mcp-gateway');
      expect(labelled()).toBe('');
      expect(podmanCli(podman, ['images', '--filter', `label=${MANAGED_LABEL}=true`, '--format', '{{.ID}}'])).toBe('');
      expect(podmanCli(podman, ['network', 'ls', '--filter', `label=${MANAGED_LABEL}=true`, '--format', '{{.Name}}'])).toBe('');
      expect((await gateway(['clean', '--all', '--config', configFile])).stdout).toBe('Nothing to clean.\n');
      expect(podmanCli(podman, ['ps', '-a', '--filter', `label=${MANAGED_LABEL}=true`, '--format', '{{.Names}}'])).toBe('');
    },
    LONG,
  );
});
