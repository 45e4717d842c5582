/**
 * Two real `gateway server` replicas from one config, each with its own
 * audit file, sharing sessions through a Redis of their own
 * (`sessions.store: redis`) or sharing nothing (`memory`). For tests of what
 * reaches "the other replica" (calls waiting for input, tasks).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startGatewayCli, type GatewayProcess } from './gateway-cli.js';
import { RedisServer } from './redis-server.js';

export interface AuditedReplicas {
  replicas: GatewayProcess[];
  /** Each replica's audit file, in the order of `replicas`. */
  audit: string[];
  stop(): Promise<void>;
}

export interface AuditedReplicasOptions {
  store: 'redis' | 'memory';
  /** The config's `server` (host and port are set). */
  server: Record<string, unknown>;
  backends: Record<string, unknown>;
  /** The management token the replicas take from `GATEWAY_MGMT_TOKEN`. */
  managementToken: string;
  /** More environment for the config's `${…}` references. */
  env?: Record<string, string>;
}

export async function startAuditedReplicas(opts: AuditedReplicasOptions): Promise<AuditedReplicas> {
  const dir = mkdtempSync(join(tmpdir(), `gw-replicas-${opts.store}-`));
  const redis = opts.store === 'redis' ? await RedisServer.start() : undefined;
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    stringify({
      server: { host: '127.0.0.1', port: 0, ...opts.server },
      sessions: redis ? { store: 'redis', redis: { url: redis.url } } : { store: 'memory' },
      audit: { enabled: true, file: '${AUDIT_FILE}' },
      containers: { enabled: false },
      backends: opts.backends,
    }),
  );
  const replicas: GatewayProcess[] = [];
  const audit: string[] = [];
  for (const id of ['r1', 'r2']) {
    const file = join(dir, `audit-${id}.jsonl`);
    audit.push(file);
    replicas.push(
      await startGatewayCli({
        args: ['--config', config, '--log-format', 'json'],
        cwd: dir,
        env: {
          ...process.env,
          ...opts.env,
          GATEWAY_REPLICA_ID: id,
          GATEWAY_MGMT_TOKEN: opts.managementToken,
          GATEWAY_STATE_DIR: join(dir, `state-${id}`),
          AUDIT_FILE: file,
        },
        timeoutMs: 60_000,
      }),
    );
  }
  return {
    replicas,
    audit,
    async stop() {
      await Promise.all(replicas.map((r) => r.stop()));
      await redis?.stop();
    },
  };
}
