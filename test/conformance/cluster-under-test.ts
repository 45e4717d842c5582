/**
 * Three gateway replicas (the real command line, `sessions.store: redis`)
 * sharing sessions through a real `redis-server`, behind a real HAProxy with
 * round-robin and no stickiness: the server suite's requests land on every
 * replica in turn. Each replica has its own backend (the fixture).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { BackendSpec } from '../../schemas/config.js';
import { startGatewayCli, type GatewayProcess } from '../helpers/gateway-cli.js';
import { RedisServer } from '../helpers/redis-server.js';
import { Haproxy } from '../helpers/haproxy.js';
import { gatewayConfig, type GatewayUnderTest } from './gateway-under-test.js';

const REPLICAS = 3;

export async function startClusterUnderTest(backend: BackendSpec, dir: string): Promise<Omit<GatewayUnderTest, 'process'>> {
  mkdirSync(dir, { recursive: true });
  const redis = await RedisServer.start();
  const configPath = join(dir, 'config.yaml');
  writeFileSync(configPath, stringify({ ...gatewayConfig(backend), sessions: { store: 'redis', redis: { url: redis.url, key_prefix: 'conformance' } } }));
  const replicas: GatewayProcess[] = [];
  let balancer: Haproxy | undefined;
  const stop = async () => {
    await balancer?.stop();
    await Promise.all(replicas.map((r) => r.stop(5_000)));
    await redis.stop();
    // Its data folder (no data is saved: the sessions die with the cluster).
    rmSync(redis.dir, { recursive: true, force: true });
    const logs = replicas.map((r, i) => `--- r${i + 1} stdout\n${r.stdout()}\n--- r${i + 1} stderr\n${r.stderr()}\n`).join('');
    writeFileSync(join(dir, 'gateway.log'), `${logs}--- haproxy\n${balancer?.log ?? ''}\n`);
  };
  try {
    for (let i = 1; i <= REPLICAS; i++) {
      const env = { ...process.env, GATEWAY_REPLICA_ID: `r${i}`, GATEWAY_STATE_DIR: join(dir, `state-r${i}`) };
      replicas.push(await startGatewayCli({ args: ['--config', configPath, '--port', '0', '--log-format', 'json'], cwd: dir, env }));
    }
    balancer = await Haproxy.start(replicas.map((r) => r.url));
    await balancer.allUp(REPLICAS);
  } catch (err) {
    await stop();
    throw err;
  }
  return { mcpUrl: `${balancer.url}/mcp`, stop };
}
