/**
 * Backends for the container tests: the hardening-report fixture and the two
 * example servers (server-everything from node_modules, server-memory through
 * npx), a config for them, where the gateway places one (`placeBackend`),
 * and an SDK client connected through a transport.
 */
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { parseConfigText } from '../../controller/config/config-loader.js';
import { EventBus } from '../../controller/event-bus.js';
import { containerStep } from '../../controller/loop/container-step.js';
import { createStatusStore } from '../../controller/status/status-store.js';
import type { StdioBackendSpec } from '../../schemas/config.js';
import type { ContainerFailure } from '../../schemas/conditions.js';
import type { ContainerManager, EnsuredImage, ImagePlan } from '../../runtime/containers/container-manager.js';
import type { ContainerStdioTransport } from '../../runtime/containers/container-stdio-transport.js';
import type { EnsureImageOptions } from '../../runtime/containers/image-store.js';
import type { ContainersConfig } from '../../runtime/containers/image-plan.js';
import { repoRoot } from '../fixtures/spawn.js';
import { TEST_NODE_BASE } from './podman.js';

export const hardeningFixture = (): string => join(repoRoot(), 'dist', 'test', 'fixtures', 'hardening-report-main.js');

export function hardeningBackend(extra: Partial<StdioBackendSpec> = {}): StdioBackendSpec {
  return { type: 'stdio', command: process.execPath, args: [hardeningFixture()], ...extra };
}

export const everythingBackend = (): StdioBackendSpec => ({
  type: 'stdio',
  command: 'node',
  args: ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'stdio'],
  cwd: repoRoot(),
});

export const memoryBackend = (): StdioBackendSpec => ({
  type: 'stdio',
  command: 'npx',
  args: ['-y', '@modelcontextprotocol/server-memory'],
  env: { MEMORY_FILE_PATH: '/tmp/memory.jsonl' },
});

/** `containers:` of a config that uses the test socket and the test Node base (or `nodeBase`). */
export function testContainersConfig(socket: string, nodeBase = TEST_NODE_BASE): ContainersConfig {
  return parseConfigText(`backends: {}\ncontainers:\n  socket: ${socket}\n  base_images: { node: ${nodeBase} }\n`).containers;
}

/** Where the gateway puts a stdio backend: its container (image ready, transport not started), a bare process and why, or a failure. */
export type PlacedBackend =
  | { mode: 'container'; plan: ImagePlan; image: EnsuredImage; transport: ContainerStdioTransport }
  | { mode: 'process'; reason?: string }
  | { mode: 'failed'; reason: ContainerFailure; message: string };

/**
 * Places one backend as the gateway's reconciler does, through the
 * controller's container steps (controller/loop/container-step.ts) until
 * they say connect or fail; `image` reaches the image step (a build without
 * cache, its progress). A bare process's reason is the one its status shows.
 */
export async function placeBackend(manager: ContainerManager, name: string, spec: StdioBackendSpec, image: EnsureImageOptions = {}): Promise<PlacedBackend> {
  const status = createStatusStore(new EventBus(100));
  status.writer.create(name, spec);
  const containers = {
    placement: manager.placement.bind(manager),
    ensureImage: (plan: ImagePlan) => manager.ensureImage(plan, image),
    fallbackReason: manager.fallbackReason.bind(manager),
    createTransport: manager.createTransport.bind(manager),
  };
  const memory = {};
  for (;;) {
    const step = await containerStep({ containers, view: status.view, record: (t) => status.writer.apply(name, t) }, name, spec, memory);
    if (step.next === 'requeue') continue;
    if (step.next === 'fail') return { mode: 'failed', reason: step.reason, message: step.message };
    const { placement } = step;
    if (placement.mode === 'container') {
      return {
        mode: 'container',
        plan: placement.plan,
        image: placement.image,
        transport: manager.createTransport(name, spec, placement.plan, placement.image),
      };
    }
    const bare = status.view.get(name)?.conditions.find((c) => c.type === 'ContainerRunning' && c.reason === 'BareProcess');
    return { mode: 'process', reason: bare?.message };
  }
}

/** The container a backend was placed in; throws naming where it went instead. */
export function inContainer(placed: PlacedBackend): Extract<PlacedBackend, { mode: 'container' }> {
  if (placed.mode === 'container') return placed;
  throw new Error(`expected a container, got ${placed.mode === 'failed' ? `a failure: ${placed.message}` : `a bare process: ${placed.reason}`}`);
}

export async function connectClient(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'container-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The text of a tool result's first content item. */
export function resultText(result: unknown): string {
  return (result as { content: { type: string; text: string }[] }).content[0]!.text;
}

/** A writable that keeps what it gets, for command output. */
export function collector(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}
