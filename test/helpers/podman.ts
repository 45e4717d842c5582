/**
 * Real Podman for the container tests. The API socket is, in order:
 * GATEWAY_TEST_PODMAN_SOCKET (CI starts one with .ci/setup-podman.sh), else
 * a `podman system service` this helper starts on a temporary socket for the
 * test file. `isolated: true` gives the file its own image and container
 * storage, for tests that remove everything labelled (gateway clean --all).
 *
 * Without Podman the tests are skipped on a developer machine and FAIL when
 * CI=true (see requirePodman).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { identify, type ContainerRuntime } from '../../runtime/containers/container-runtime.js';
import { parseEndpoint } from '../../runtime/containers/runtime-endpoint.js';
import { buildBaseFromHost } from '../../runtime/containers/base-from-host.js';

/** The Node base the tests build on: made from this host's node, as `gateway build --base-from-host` does. */
export const TEST_NODE_BASE = 'localhost/mcp-gateway-test/node-base:host';

export const podmanInstalled = spawnSync('podman', ['--version'], { stdio: 'ignore' }).status === 0;
const inCi = process.env.CI === 'true';

/** Skip on a developer machine without Podman; never in CI. */
export const skipWithoutPodman = !podmanInstalled && !process.env.GATEWAY_TEST_PODMAN_SOCKET && !inCi;

export interface TestPodman {
  socket: string;
  runtime: ContainerRuntime;
  /** `podman` CLI arguments that reach the same storage (for assertions from outside the API). */
  cliArgs: string[];
  stop(): Promise<void>;
}

export async function startTestPodman(opts: { isolated?: boolean } = {}): Promise<TestPodman> {
  const given = process.env.GATEWAY_TEST_PODMAN_SOCKET;
  if (given && !opts.isolated) {
    // The shared service answers slowly while other test files build images: retry for a while before failing.
    const runtime = await retry(
      () => identify(parseEndpoint(given, 'test')),
      60_000,
      (err) => `the Podman service at ${given} did not answer: ${String(err)}`,
    );
    return { socket: given, runtime, cliArgs: [], stop: async () => {} };
  }
  if (!podmanInstalled) {
    throw new Error(`Podman is required${inCi ? ' in CI (CI=true)' : ''} but is not installed: run .ci/setup-podman.sh as root`);
  }
  // Straight under /tmp, not the test run's TMPDIR (test/run-temp-dir.ts): Podman refuses a runroot path
  // longer than 50 characters. stop() removes the folder.
  const dir = mkdtempSync('/tmp/gw-podman-');
  const socket = join(dir, 'podman.sock');
  // Networks are host-wide unless their config folder is the test's own too.
  const cliArgs = opts.isolated
    ? ['--root', join(dir, 'root'), '--runroot', join(dir, 'runroot'), '--tmpdir', join(dir, 'tmp'), '--network-config-dir', join(dir, 'networks')]
    : [];
  const child = spawn('podman', [...cliArgs, 'system', 'service', '--time=0', `unix://${socket}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const runtime = await waitForSocket(socket, child, () => stderr);
  return {
    socket,
    runtime,
    cliArgs,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      if (opts.isolated) {
        // Unmounts and deletes the storage's layers, so the folder can go.
        for (const args of [
          ['rm', '-af'],
          ['rmi', '-af'],
        ])
          spawnSync('podman', [...cliArgs, ...args], { stdio: 'ignore' });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForSocket(socket: string, child: ChildProcess, stderr: () => string): Promise<ContainerRuntime> {
  return retry(
    () => identify(parseEndpoint(socket, 'test')),
    60_000,
    (err) => `podman system service did not answer on ${socket}: ${stderr() || (err as Error).message}`,
    () => child.exitCode !== null,
  );
}

async function retry<T>(attempt: () => Promise<T>, withinMs: number, failure: (err: unknown) => string, hopeless = () => false): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (hopeless() || Date.now() > deadline) throw new Error(failure(err), { cause: err });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** Makes the test Node base (skipped when one made from the same node version is there). */
export async function ensureTestBase(runtime: ContainerRuntime): Promise<void> {
  await buildBaseFromHost(runtime, TEST_NODE_BASE);
}

/** `podman <args>` against the test's storage; returns stdout, throws on failure. */
export function podmanCli(p: TestPodman, args: string[]): string {
  const r = spawnSync('podman', [...p.cliArgs, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`podman ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}
