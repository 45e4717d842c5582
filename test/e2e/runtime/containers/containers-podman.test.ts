/**
 * Stdio backends in hardened containers on real Podman: an SDK Client talks
 * through ContainerStdioTransport to MCP servers running in containers
 * built by ContainerManager. The hardening is proven from inside by the
 * hardening-report fixture; images are reused when nothing changed and
 * rebuilt when something did; a missing base fails closed under `true` and
 * falls back under `auto`; secrets stay out of argv, labels and images.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ContainerManager } from '../../../../runtime/containers/container-manager.js';
import type { ContainerStdioTransport } from '../../../../runtime/containers/container-stdio-transport.js';
import { ContainerError } from '../../../../runtime/containers/errors.js';
import { BRIDGE_NETWORK } from '../../../../runtime/containers/hardening.js';
import { BACKEND_LABEL, MANAGED_LABEL, OWNER_LABEL } from '../../../../runtime/containers/labels.js';
import type { StdioBackendSpec } from '../../../../schemas/config.js';
import { ensureTestBase, podmanCli, skipWithoutPodman, startTestPodman, TEST_NODE_BASE, type TestPodman } from '../../../helpers/podman.js';
import {
  connectClient,
  everythingBackend,
  hardeningBackend,
  inContainer,
  memoryBackend,
  placeBackend,
  resultText,
  testContainersConfig,
} from '../../../helpers/container-backends.js';
import { waitFor } from '../../../helpers/wait.js';
import { repoRoot } from '../../../fixtures/spawn.js';

const BUILD_TIMEOUT = 240_000;

describe.skipIf(skipWithoutPodman)('stdio backends in hardened Podman containers', () => {
  let podman: TestPodman;
  let manager: ContainerManager;
  const open: { client: Client; transport: ContainerStdioTransport }[] = [];

  beforeAll(async () => {
    podman = await startTestPodman();
    await ensureTestBase(podman.runtime);
    manager = ContainerManager.create(testContainersConfig(podman.socket), { runtime: podman.runtime });
  }, BUILD_TIMEOUT);

  afterAll(async () => {
    for (const { client } of open) await client.close().catch(() => undefined);
    await podman?.stop();
  });

  /** Image, transport and a connected SDK client for one backend. */
  async function start(name: string, spec: StdioBackendSpec, m = manager) {
    const prepared = inContainer(await placeBackend(m, name, spec));
    const stderr: string[] = [];
    prepared.transport.onstderr = (line) => stderr.push(line);
    const client = await connectClient(prepared.transport);
    open.push({ client, transport: prepared.transport });
    return { ...prepared, client, stderr };
  }

  it(
    'proves the hardening from inside: uid, read-only root, no capabilities, NoNewPrivs, no network, limits, init',
    async () => {
      const secret = `container-secret-${randomBytes(8).toString('hex')}`;
      const spec = hardeningBackend({ env: { GATEWAY_TEST_SECRET: secret }, container: { memory: '256m', cpus: 0.5, pids: 64 } });
      const { client, transport, image, stderr } = await start('hardening', spec);
      const report = JSON.parse(resultText(await client.callTool({ name: 'hardening_report', arguments: {} })));

      expect(report.uid).toBe(65532);
      expect(report.gid).toBe(65532);
      expect(report.root).toEqual({ writable: false, error: 'EROFS' });
      expect(report.tmp.writable).toBe(true);
      expect(report.home).toMatchObject({ path: '/home/mcp', writable: true });
      expect(report.capabilities).toEqual({ effective: '0000000000000000', permitted: '0000000000000000', bounding: '0000000000000000' });
      expect(report.noNewPrivs).toBe('1');
      expect(report.seccomp).toBe('2');
      expect(report.interfaces).toEqual(['lo']);
      expect(report.cgroup).toMatchObject({ memory: String(256 * 1024 ** 2), cpus: 0.5, pids: '64' });
      expect(report.ulimits).toEqual({ nofile: { soft: '1024', hard: '1024' }, nproc: { soft: '4096', hard: '4096' } });
      // An init process is pid 1 (it reaps and forwards signals); the server is its child.
      expect(report.pid1[0]).toMatch(/init|catatonit/);
      expect(report.pid).not.toBe(1);
      expect(report.mounts.join('\n')).toMatch(/ \/tmp tmpfs /);
      expect(report.mounts.join('\n')).toMatch(/ \/home\/mcp tmpfs /);
      expect(stderr.join('\n')).toContain('hardening-report: serving stdio as uid 65532');

      // The secret reached the server through the API's environment ...
      expect(JSON.parse(resultText(await client.callTool({ name: 'env_value', arguments: { name: 'GATEWAY_TEST_SECRET' } })))).toBe(secret);
      // ... and nothing else: no process's argv, no label, not the image.
      expect(execFileSync('ps', ['-eww', '-o', 'args'], { encoding: 'utf8' })).not.toContain(secret);
      const info = transport.container!;
      expect(info).toMatchObject({ image: image.image, runtime: 'podman' });
      const inspected = JSON.parse(podmanCli(podman, ['container', 'inspect', info.id]))[0];
      expect(inspected.Config.Labels).toMatchObject({ [MANAGED_LABEL]: 'true', [BACKEND_LABEL]: 'hardening', [OWNER_LABEL]: expect.any(String) });
      expect(JSON.stringify(inspected.Config.Labels)).not.toContain(secret);
      expect(podmanCli(podman, ['history', '--no-trunc', image.image])).not.toContain(secret);
      expect(podmanCli(podman, ['image', 'inspect', image.image])).not.toContain(secret);

      // close() stops and removes the container.
      await client.close();
      expect(() => podmanCli(podman, ['container', 'inspect', info.id])).toThrow(/no such container/i);
    },
    BUILD_TIMEOUT,
  );

  it(
    'runs server-everything (a script in node_modules) and server-memory (npx, installed at build time) and calls their tools',
    async () => {
      const everything = await start('everything', everythingBackend());
      const echo = await everything.client.callTool({ name: 'echo', arguments: { message: 'from a container' } });
      expect(resultText(echo)).toBe('Echo: from a container');

      const memory = await start('memory', memoryBackend());
      expect(memory.image.image).toMatch(/^localhost\/mcp-gateway\/memory:[0-9a-f]{16}$/);
      await memory.client.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: 'gateway', entityType: 'software', observations: ['runs backends in containers'] }] },
      });
      const graph = JSON.parse(resultText(await memory.client.callTool({ name: 'read_graph', arguments: {} })));
      expect(graph.entities).toEqual([expect.objectContaining({ name: 'gateway', entityType: 'software', observations: ['runs backends in containers'] })]);
      await everything.client.close();
      await memory.client.close();
    },
    BUILD_TIMEOUT,
  );

  it(
    'reuses the image across restarts (same id, no build) and rebuilds when the backend changes',
    async () => {
      const spec = hardeningBackend();
      const first = inContainer(await placeBackend(manager, 'reuse', spec, { noCache: true }));
      expect(first.image.built).toBe(true);
      // A new manager is a gateway restart.
      const restarted = ContainerManager.create(testContainersConfig(podman.socket), { runtime: podman.runtime });
      const progress: string[] = [];
      const again = inContainer(await placeBackend(restarted, 'reuse', spec, { onProgress: (l) => progress.push(l) }));
      expect(again.image).toMatchObject({ built: false, image: first.image.image, id: first.image.id });
      expect(progress).toEqual([]);

      // A change never seen before (images outlive a test run).
      const changed = inContainer(
        await placeBackend(restarted, 'reuse', hardeningBackend({ args: [spec.args![0]!, `--changed-${randomBytes(4).toString('hex')}`] })),
      );
      expect(changed.image.built).toBe(true);
      const changedImage = changed.image.image;
      expect(changedImage).not.toBe(first.image.image);
      podmanCli(podman, ['rmi', changedImage]);
    },
    BUILD_TIMEOUT,
  );

  it(
    'reports a crash with its exit code, then closes; the container is gone',
    async () => {
      const { client, transport } = await start('crashy', hardeningBackend());
      const id = transport.container!.id;
      const exited = new Promise<number | null>((resolve) => {
        transport.onexit = (exit) => resolve(exit.code);
      });
      const closed = new Promise<void>((resolve) => {
        client.onclose = () => resolve();
      });
      await client.callTool({ name: 'exit', arguments: { code: 3 } });
      expect(await exited).toBe(3);
      await closed;
      await waitFor(() => !containerExists(id), 'the crashed container to be removed');
    },
    BUILD_TIMEOUT,
  );

  it(
    'fails closed under `true`, falls back to a bare process under `auto`, when the base image is missing',
    async () => {
      const missing = testContainersConfig(podman.socket, 'absent.invalid/mcp-gateway-test:none');
      const strict = ContainerManager.create({ ...missing, enabled: true }, { runtime: podman.runtime });
      const failed = await placeBackend(strict, 'strict', hardeningBackend());
      expect(failed).toMatchObject({ mode: 'failed', reason: 'BaseImageUnavailable' });
      expect((failed as { message: string }).message).toMatch(
        /base image absent\.invalid\/mcp-gateway-test:none is neither present nor pullable.*gateway build --base-from-host/,
      );

      const auto = ContainerManager.create(missing, { runtime: podman.runtime });
      const fallback = await placeBackend(auto, 'lenient', hardeningBackend());
      expect(fallback.mode).toBe('process');
      expect((fallback as { reason: string }).reason).toContain('gateway build --base-from-host');
      // A per-backend `container.enabled: true` is fail-closed under a global auto.
      const pinned = await placeBackend(auto, 'pinned', hardeningBackend({ container: { enabled: true } }));
      expect(pinned).toMatchObject({ mode: 'failed', message: expect.stringMatching(/neither present nor pullable/) });
    },
    BUILD_TIMEOUT,
  );

  it(
    'fails with a clear reason when the container cannot start, and leaves no container behind',
    async () => {
      // A memory limit below what the runtime needs to start the container at all.
      const prepared = inContainer(await placeBackend(manager, 'unstartable', hardeningBackend({ container: { memory: '1k' } })));
      const transport = prepared.transport;
      const error = await connectClient(transport).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ContainerError);
      expect((error as ContainerError).reason).toBe('ContainerStartFailed');
      expect((error as Error).message).toMatch(/starting the container failed: .*memory/);
      expect(podmanCli(podman, ['ps', '-a', '--filter', `label=${BACKEND_LABEL}=unstartable`, '--format', '{{.ID}}']).trim()).toBe('');
      // Closing a transport whose start failed, or that never started, returns at once.
      await transport.close();
      const never = manager.createTransport('never', hardeningBackend(), prepared.plan, prepared.image);
      await never.close();

      // A command missing from the image: the container starts, its init cannot run the command and exits.
      const missing = inContainer(
        await placeBackend(manager, 'missing-command', { type: 'stdio', command: '/no/such/server', container: { image: TEST_NODE_BASE } }),
      );
      const missingTransport = missing.transport;
      const stderr: string[] = [];
      missingTransport.onstderr = (line) => stderr.push(line);
      const exit = new Promise<number | null>((resolve) => (missingTransport.onexit = (e) => resolve(e.code)));
      await expect(connectClient(missingTransport)).rejects.toThrow();
      expect(await exit).not.toBe(0);
      expect(stderr.join('\n')).toMatch(/\/no\/such\/server|No such file/);
    },
    BUILD_TIMEOUT,
  );

  it(
    'gives a backend that opts into `network: bridge` an interface on the gateway’s own labelled network',
    async () => {
      const { client } = await start('networked', hardeningBackend({ container: { network: 'bridge' } }));
      const report = JSON.parse(resultText(await client.callTool({ name: 'hardening_report', arguments: {} })));
      expect(report.interfaces).toContain('lo');
      expect(report.interfaces.filter((i: string) => i !== 'lo').length).toBeGreaterThan(0);
      const network = JSON.parse(podmanCli(podman, ['network', 'inspect', BRIDGE_NETWORK]))[0];
      expect(network.labels ?? network.Labels).toMatchObject({ [MANAGED_LABEL]: 'true' });
      await client.close();
    },
    BUILD_TIMEOUT,
  );

  it(
    'leaves no container behind when its gateway is killed (SIGKILL), and removes its own on request',
    async () => {
      const child = spawn(process.execPath, [join(repoRoot(), 'dist', 'test', 'fixtures', 'container-owner-main.js'), podman.socket, TEST_NODE_BASE], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const id = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).on('line', (line) => line.startsWith('CONTAINER ') && resolve(line.slice(10)));
        child.once('exit', (code) => reject(new Error(`owner exited early with ${code}`)));
      });
      expect(JSON.parse(podmanCli(podman, ['container', 'inspect', id]))[0].State.Running).toBe(true);
      child.kill('SIGKILL');
      // The attach connection dies with the process: stdin ends, the server exits, the container is removed.
      await waitFor(() => !containerExists(id), 'the killed gateway’s container to be removed', 30_000);

      const { transport, client } = await start('own', hardeningBackend());
      const own = transport.container!.id;
      const report = await manager.removeOwnContainers();
      expect(report?.removed.map((r) => r.backend)).toContain('own');
      expect(containerExists(own)).toBe(false);
      await client.close();
    },
    BUILD_TIMEOUT,
  );

  function containerExists(id: string): boolean {
    try {
      podmanCli(podman, ['container', 'inspect', id]);
      return true;
    } catch {
      return false;
    }
  }
});
