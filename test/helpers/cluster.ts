/**
 * Gateway replicas sharing sessions through Redis: each a real
 * `gateway server` process (its own backends, its own `GATEWAY_REPLICA_ID`),
 * all from one config with `sessions.store: redis`. A replica can be killed
 * (SIGKILL), stopped gracefully (SIGTERM) and started again.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { stringify } from 'yaml';
import { startGatewayCli, type GatewayProcess } from './gateway-cli.js';
import { Haproxy } from './haproxy.js';
import { RedisServer } from './redis-server.js';

export interface Replica {
  id: string;
  url: string;
  process: GatewayProcess;
}

export interface ClusterOptions {
  redisUrl: string;
  replicas?: number;
  backends: Record<string, unknown>;
  /** Merged into `sessions` (store and redis are set). */
  sessions?: Record<string, unknown>;
  /** Merged into `server`. */
  server?: Record<string, unknown>;
  security?: Record<string, unknown>;
  /** The config's `plugins`. */
  plugins?: unknown[];
  /** The config's `incoming_auth` (client authentication). */
  incomingAuth?: Record<string, unknown>;
  /** A replica's port by its id (`r1`, …); else a free one. */
  ports?: Record<string, number>;
  /** Added to every replica's environment (e.g. the shared GATEWAY_SECRETS_KEY). */
  env?: NodeJS.ProcessEnv;
}

export class Cluster {
  readonly replicas: Replica[] = [];
  /** Each cluster has its own key prefix: tests may share one Redis. */
  readonly keyPrefix = `gwtest-${randomBytes(4).toString('hex')}`;
  private readonly dir = mkdtempSync(join(tmpdir(), 'gw-cluster-'));
  private readonly configPath = join(this.dir, 'config.yaml');

  private constructor(private readonly opts: ClusterOptions) {
    const config = {
      // A short drain: a replica stopped at the end of a test need not wait the default's health checks out.
      server: { host: '127.0.0.1', port: 0, shutdown_drain_s: 0.5, ...opts.server },
      audit: { enabled: false },
      containers: { enabled: false },
      feature_flags: { hot_reload: false },
      sessions: { store: 'redis', ...opts.sessions, redis: { url: opts.redisUrl, key_prefix: this.keyPrefix } },
      ...(opts.security ? { security: opts.security } : {}),
      backends: opts.backends,
      ...(opts.plugins && { plugins: opts.plugins }),
      ...(opts.incomingAuth && { incoming_auth: opts.incomingAuth }),
    };
    writeFileSync(this.configPath, stringify(config));
  }

  static async start(opts: ClusterOptions): Promise<Cluster> {
    const cluster = new Cluster(opts);
    const count = opts.replicas ?? 3;
    await Promise.all(Array.from({ length: count }, (_, i) => cluster.startReplica(`r${i + 1}`)));
    cluster.replicas.sort((a, b) => a.id.localeCompare(b.id));
    return cluster;
  }

  get urls(): string[] {
    return this.replicas.map((r) => r.url);
  }

  replica(id: string): Replica {
    const r = this.replicas.find((x) => x.id === id);
    if (!r) throw new Error(`no replica ${id}`);
    return r;
  }

  async startReplica(id: string): Promise<Replica> {
    const process_ = await startGatewayCli({
      args: ['--config', this.configPath, '--port', String(this.opts.ports?.[id] ?? 0), '--log-format', 'json', '--log-level', 'info'],
      cwd: this.dir,
      env: { ...process.env, ...this.opts.env, GATEWAY_REPLICA_ID: id, GATEWAY_STATE_DIR: join(this.dir, `state-${id}`) },
      // Several replicas start at once, each with its backends: on a loaded machine that takes a while.
      timeoutMs: 60_000,
    });
    const replica = { id, url: process_.url, process: process_ };
    const i = this.replicas.findIndex((r) => r.id === id);
    if (i >= 0) this.replicas[i] = replica;
    else this.replicas.push(replica);
    return replica;
  }

  /** SIGKILL: the replica dies without a word. */
  async kill(id: string): Promise<void> {
    const r = this.replica(id);
    r.process.child.kill('SIGKILL');
    await r.process.stop(1000);
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.replicas.map((r) => r.process.stop(10_000)));
  }

  /** What every replica printed, for a failing test's message. */
  logs(): string {
    return this.replicas.map((r) => `--- ${r.id}\n${r.process.stdout()}\n${r.process.stderr()}`).join('\n');
  }
}

export interface ClusterBed {
  redis: RedisServer;
  cluster: Cluster;
  /** HAProxy in front of every replica (with `balancer: true`), each of them up behind it. */
  proxy?: Haproxy;
  /** Stops the balancer, the replicas and Redis. */
  stop(): Promise<void>;
}

/** A Redis of the test's own, replicas over it and, with `balancer`, HAProxy in front (`managementToken`: the replicas' one). */
export async function startClusterBed(opts: Omit<ClusterOptions, 'redisUrl'> & { balancer?: boolean; managementToken?: string }): Promise<ClusterBed> {
  const { balancer, managementToken, ...clusterOpts } = opts;
  const redis = await RedisServer.start();
  const cluster = await Cluster.start({ ...clusterOpts, redisUrl: redis.url });
  const proxy = balancer ? await Haproxy.start(cluster.urls) : undefined;
  await proxy?.allUp(cluster.replicas.length, 20_000, managementToken);
  return {
    redis,
    cluster,
    proxy,
    async stop() {
      await proxy?.stop();
      await cluster.stopAll();
      await redis.stop();
    },
  };
}
