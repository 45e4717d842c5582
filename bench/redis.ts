/**
 * A `redis-server` of the bench's own, on a free loopback port, no snapshot
 * schedule: the shared session store of the Redis-store scenarios.
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { freePort, work } from './harness.js';
import { startProcess, type Proc } from './proc.js';

export async function startRedis(name: string): Promise<{ proc: Proc; url: string }> {
  const port = await freePort();
  const dir = join(work, `redis-${name}`);
  mkdirSync(dir, { recursive: true });
  const proc = startProcess(`redis-${name}`, 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir]);
  await proc.waitForLine(/Ready to accept connections/, 20_000);
  return { proc, url: `redis://127.0.0.1:${port}` };
}
