/**
 * A real HAProxy of the test's own in front of gateway replicas: HTTP mode,
 * round-robin per request, no stickiness, a health check on each replica's
 * GET /manage/v1/ready (a draining or store-less replica is taken out).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

export class Haproxy {
  private output = '';

  private constructor(
    readonly port: number,
    private readonly child: ChildProcess,
  ) {}

  /** `replicas`: base URLs (`http://127.0.0.1:<port>`). */
  static async start(replicas: string[]): Promise<Haproxy> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'gw-haproxy-'));
    const servers = replicas.map((url, i) => `  server r${i + 1} ${new URL(url).host} check inter 200ms fall 1 rise 1`).join('\n');
    const config = `global
  maxconn 4000
defaults
  mode http
  timeout connect 2s
  timeout client 120s
  timeout server 120s
  timeout http-request 10s
  # A check waits this long for its answer (else it would wait only \`inter\`): a slow machine is not a down replica.
  timeout check 2s
frontend gateway
  bind 127.0.0.1:${port}
  default_backend replicas
backend replicas
  balance roundrobin
  option httpchk
  http-check send meth GET uri /manage/v1/ready ver HTTP/1.1 hdr Host 127.0.0.1
  http-check expect status 200
${servers}
`;
    const file = join(dir, 'haproxy.cfg');
    writeFileSync(file, config);
    const child = spawn('haproxy', ['-f', file, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const proxy = new Haproxy(port, child);
    child.stdout!.on('data', (c: Buffer) => (proxy.output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (proxy.output += c.toString()));
    try {
      await proxy.listening();
    } finally {
      // HAProxy read its configuration at start (and never reloads it here): the folder can go.
      rmSync(dir, { recursive: true, force: true });
    }
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get log(): string {
    return this.output;
  }

  /**
   * Resolves once `count` different replicas answered through the balancer
   * (each passed its first health check): asks each one's id in turn (with
   * the management token, when the replicas have one).
   */
  async allUp(count: number, timeoutMs = 20_000, managementToken?: string): Promise<void> {
    const seen = new Set<string>();
    const deadline = Date.now() + timeoutMs;
    const headers: Record<string, string> = managementToken ? { authorization: `Bearer ${managementToken}` } : {};
    while (seen.size < count) {
      if (Date.now() > deadline) throw new Error(`only ${seen.size} of ${count} replicas answered through haproxy:\n${this.output}`);
      const res = await fetch(`${this.url}/manage/v1/status`, { headers }).catch(() => undefined);
      const body = res?.ok ? ((await res.json()) as { replica?: { id?: string } }) : undefined;
      if (body?.replica?.id) seen.add(body.replica.id);
      else await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    await exited;
  }

  private async listening(): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`haproxy exited:\n${this.output}`);
      const ok = await new Promise<boolean>((resolve) => {
        const socket = connect(this.port, '127.0.0.1', () => {
          socket.end();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`haproxy did not listen:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
