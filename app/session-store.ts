/**
 * `sessions.store: redis`: this replica's part of the Redis cluster, the
 * link its sessions' transports use, and the session table over them; and
 * the events people see when Redis goes away and comes back.
 */
import type { GatewayConfig } from '../schemas/config.js';
import { RedisCluster } from '../runtime/cluster/redis-cluster.js';
import { RedisClusterLink } from '../api/mcp/redis-cluster-link.js';
import { RedisSessionTable } from '../api/mcp/redis-session-table.js';
import type { SessionLimits } from '../api/mcp/session-table.js';
import type { Observability } from './observability.js';

export interface SharedSessions {
  cluster: RedisCluster;
  link: RedisClusterLink;
  table: RedisSessionTable;
  /** Connects to Redis and starts hearing the other replicas; an unreachable Redis is said, not thrown. */
  start(): Promise<void>;
}

export function buildSessionTable(config: GatewayConfig, limits: SessionLimits, replica: string, o: Observability): SharedSessions {
  const log = o.logger.child({ component: 'sessions' });
  const replayMs = config.sessions.replay_s * 1000;
  const cluster = new RedisCluster({ url: config.sessions.redis.url!, keyPrefix: config.sessions.redis.key_prefix, replayMs }, replica, log);
  const link = new RedisClusterLink(cluster, replayMs, log);
  const table = new RedisSessionTable(limits, cluster, link, log);
  // An outage told is followed by its end.
  let told = false;
  cluster.connection.onStatus((status, reason) => {
    if (status === 'ok') {
      if (told) o.events.emit({ stage: 'store_recovered', message: 'the session store (Redis) is reachable again', details: { store: 'redis' } });
      told = false;
      return;
    }
    // Lost after it was reached: this replica serves the sessions it holds and stays ready.
    told = true;
    o.events.emit({
      stage: 'store_degraded',
      severity: 'error',
      message: `the session store (Redis) cannot be reached: ${reason}; this replica serves the sessions it holds, refuses new ones and those it does not hold (503, Retry-After) until it is back`,
      details: { store: 'redis', reason },
    });
  });
  const start = async () => {
    await cluster.start((m) => table.hear(m));
    if (cluster.connection.status === 'ok') return;
    told = true;
    o.events.emit({
      stage: 'store_unavailable',
      severity: 'error',
      message: `the session store (Redis) cannot be reached: ${cluster.connection.reason}; this replica is not ready until it is`,
      details: { store: 'redis', reason: cluster.connection.reason },
    });
  };
  return { cluster, link, table, start };
}
