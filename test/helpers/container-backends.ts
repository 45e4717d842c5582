/**
 * Backends for the container tests: the hardening-report fixture and the two
 * example servers (server-everything from node_modules, server-memory through
 * npx), a config for them, and an SDK client connected through a transport.
 */
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { parseConfigText } from '../../controller/config/config-loader.js';
import type { StdioBackendSpec } from '../../schemas/config.js';
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
