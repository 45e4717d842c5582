/**
 * Containers through the whole gateway: the reconciler builds the image
 * (ImageReady), starts the hardened container (ContainerRunning), serves its
 * tools, restarts it through the normal backoff when it dies, and removes it
 * on shutdown. Fail-closed under `enabled: true`; a bare process with the
 * reason in the record under `auto` without a runtime.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { ensureTestBase, skipWithoutPodman, startTestPodman, TEST_NODE_BASE, type TestPodman } from '../../../helpers/podman.js';
import { hardeningBackend } from '../../../helpers/container-backends.js';
import { waitFor } from '../../../helpers/wait.js';
import { fixtureCommand } from '../../../fixtures/spawn.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { CLIENT_BIN, GATEWAY_BIN, runBin } from '../../../helpers/cli-run.js';

const BUILD_TIMEOUT = 240_000;

const condition = (h: Harness, backend: string, type: string) => h.gateway.controller.backendRecord(backend)?.conditions.find((c) => c.type === type);

describe.skipIf(skipWithoutPodman)('the gateway runs stdio backends in hardened containers', () => {
  let podman: TestPodman;
  let h: Harness;

  beforeAll(async () => {
    podman = await startTestPodman();
    await ensureTestBase(podman.runtime);
    h = await startGateway({
      containers: { enabled: true, socket: podman.socket, base_images: { node: TEST_NODE_BASE } },
      health: { interval_s: 3600 },
      controller: { backoff_initial_ms: 200, backoff_max_ms: 2000 },
      backends: { boxed: hardeningBackend() },
    });
  }, BUILD_TIMEOUT);

  afterAll(async () => {
    await h?.close();
    await podman?.stop();
  });

  const containerIds = () =>
    execFileSync('podman', [...podman.cliArgs, 'ps', '-a', '-q', '--filter', 'label=mcp-gateway.backend=boxed'], {
      encoding: 'utf8',
      env: { ...process.env, CONTAINER_HOST: `unix://${podman.socket}` },
    })
      .split('\n')
      .filter(Boolean);

  it('records the image and container steps and serves the tools', async () => {
    const record = h.gateway.controller.backendRecord('boxed')!;
    expect(record.phase).toBe('Ready');
    expect(record.container).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{12,}$/), runtime: 'podman' });
    expect(record.container!.image).toContain('mcp-gateway');
    expect(condition(h, 'boxed', 'ImageReady')).toMatchObject({ status: true, reason: expect.stringMatching(/^(Built|Present)$/) });
    expect(condition(h, 'boxed', 'ContainerRunning')).toMatchObject({ status: true, reason: 'Running' });
    const client = await h.connect();
    const report = JSON.parse(
      ((await client.callTool({ name: 'boxed_hardening_report', arguments: {} })) as { content: Array<{ text: string }> }).content[0]!.text,
    ) as { uid: number; interfaces: string[] };
    expect(report.uid).toBe(65532);
    expect(report.interfaces).toEqual(['lo']);
  });

  it('a container killed from outside is restarted through the normal backoff', async () => {
    const before = h.gateway.controller.backendRecord('boxed')!.container!.id;
    execFileSync('podman', [...podman.cliArgs, 'kill', before], { env: { ...process.env, CONTAINER_HOST: `unix://${podman.socket}` }, stdio: 'ignore' });
    await h.waitForEvent((e) => e.backend === 'boxed' && e.stage === 'retry_scheduled');
    await waitFor(
      () => {
        const r = h.gateway.controller.backendRecord('boxed');
        return r?.phase === 'Ready' && r.container !== null && r.container.id !== before;
      },
      'a new container',
      60_000,
    );
    // The restart reused the image: no second build.
    expect(h.gateway.events.list().filter((e) => e.backend === 'boxed' && e.stage === 'image_built').length).toBeLessThanOrEqual(1);
  });

  it('shutdown removes its containers', async () => {
    expect(containerIds().length).toBeGreaterThan(0);
    await h.close();
    await waitFor(() => containerIds().length === 0, 'no container of this backend left', 30_000);
  });
});

describe.skipIf(skipWithoutPodman)('container policy at the gateway', () => {
  let podman: TestPodman;
  beforeAll(async () => {
    podman = await startTestPodman();
  }, BUILD_TIMEOUT);
  afterAll(async () => podman?.stop());

  it('enabled: true fails closed when the base image cannot be had: Failed, a clear reason, never a bare process', async () => {
    const h = await startGateway({
      containers: { enabled: true, socket: podman.socket, base_images: { node: 'localhost/mcp-gateway-test/no-such-base:1' } },
      controller: { backoff_initial_ms: 60_000, backoff_max_ms: 60_000 },
      backends: { strict: hardeningBackend() },
    });
    try {
      const record = h.gateway.controller.backendRecord('strict')!;
      expect(record.phase).toBe('Failed');
      expect(record.container).toBeNull();
      expect(condition(h, 'strict', 'ImageReady')).toMatchObject({ status: false, reason: 'BaseImageUnavailable' });
      expect(record.error).toMatch(/no-such-base/);
      expect(h.gateway.controller.connection('strict')).toBeUndefined();
    } finally {
      await h.close();
    }
  });

  it('auto without a runtime: a bare process, and the record and a warning say why', async () => {
    const f = fixtureCommand(['--name', 'bare']);
    const h = await startGateway({
      containers: { enabled: 'auto', socket: '/nonexistent/podman.sock' },
      backends: { bare: { type: 'stdio', command: f.command, args: f.args } },
    });
    try {
      const record = h.gateway.controller.backendRecord('bare')!;
      expect(record.phase).toBe('Ready');
      expect(record.container).toBeNull();
      expect(condition(h, 'bare', 'ContainerRunning')).toMatchObject({ status: false, reason: 'BareProcess' });
      expect(h.gateway.controller.connection('bare')!.pid).toBeGreaterThan(0);
      expect(h.logs.some((l) => /bare processes/.test(l) && /"level":40/.test(l))).toBe(true);
    } finally {
      await h.close();
    }
  });
});

describe.skipIf(skipWithoutPodman)('the command line and containers', () => {
  let podman: TestPodman;
  beforeAll(async () => {
    podman = await startTestPodman();
    await ensureTestBase(podman.runtime);
  }, BUILD_TIMEOUT);
  afterAll(async () => podman?.stop());

  it('gateway-client containers list shows the backend; gateway stop --force kills the server and removes its containers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-force-'));
    const config = join(dir, 'gateway.yaml');
    writeFileSync(
      config,
      stringify({
        audit: { enabled: false },
        containers: { enabled: true, socket: podman.socket, base_images: { node: TEST_NODE_BASE } },
        backends: { forced: hardeningBackend() },
      }),
    );
    const env = { GATEWAY_STATE_DIR: join(dir, 'state'), GATEWAY_URL: '' };
    const started = await runBin(GATEWAY_BIN, ['server', '-d', '--wait', '--name', 'boxed', '--config', config, '--port', '0'], { env });
    expect(started.code, started.stderr).toBe(0);
    const pid = Number(/\(pid (\d+)\)/.exec(started.stdout)![1]);
    try {
      const list = await runBin(CLIENT_BIN, ['containers', 'list', '--socket', podman.socket, '-o', 'json'], { env });
      expect(list.code, list.stderr).toBe(0);
      const ours = (JSON.parse(list.stdout) as Array<{ Labels?: Record<string, string> }>).filter((c) => c.Labels?.['mcp-gateway.backend'] === 'forced');
      expect(ours).toHaveLength(1);
      expect(ours[0]!.Labels!['mcp-gateway.owner']).toMatch(new RegExp(`/${pid}/`));

      const stop = await runBin(GATEWAY_BIN, ['stop', 'boxed', '--force'], { env });
      expect(stop.code, stop.stderr).toBe(0);
      const after = await runBin(CLIENT_BIN, ['containers', 'list', '--socket', podman.socket, '-o', 'json'], { env });
      expect((JSON.parse(after.stdout) as Array<{ Labels?: Record<string, string> }>).filter((c) => c.Labels?.['mcp-gateway.backend'] === 'forced')).toEqual(
        [],
      );
    } finally {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // stopped
      }
    }
  }, 120_000);
});
