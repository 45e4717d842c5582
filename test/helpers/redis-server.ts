/**
 * A real `redis-server` of the test's own, on a free loopback port, with no
 * snapshot schedule (`--save ''`): never the system's service. It can be
 * stopped (killed, or after a SHUTDOWN SAVE that keeps its data in its
 * folder) and started again on the same port with that data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './ports.js';

export class RedisServer {
  private child?: ChildProcess;
  private output = '';

  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  static async start(): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), mkdtempSync(join(tmpdir(), 'gw-redis-')));
    await server.launch();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** A client of this server for the test's own look (close it). */
  client(): Redis {
    return new Redis(this.url, { lazyConnect: false, maxRetriesPerRequest: 1 });
  }

  /** Starts (again) on the same port, with the data saved in the folder if any. */
  async launch(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir, '--dbfilename', 'dump.rdb'];
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${this.output}`)), 15_000);
      const onData = (chunk: Buffer) => {
        this.output += chunk.toString();
        if (this.output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        if (this.child === child) this.child = undefined;
        reject(new Error(`redis-server exited (${code}):\n${this.output}`));
      });
    });
  }

  /** Stops: `save` writes the data first (SHUTDOWN SAVE), so a launch() gets it back; otherwise it is killed. */
  async stop(opts: { save?: boolean } = {}): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (opts.save) {
      const client = new Redis(this.url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
      await client.call('SHUTDOWN', 'SAVE').catch(() => undefined);
      client.disconnect();
    } else {
      child.kill('SIGKILL');
    }
    await exited;
    this.child = undefined;
  }
}
