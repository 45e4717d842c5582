/**
 * Who this process is among the replicas of one gateway: `GATEWAY_REPLICA_ID`
 * (a pod name, say), else `<hostname>-<pid>`. Shown in `GET /status` and as
 * the `replica` of the sessions it served.
 */
import { hostname } from 'node:os';

export function replicaId(env: NodeJS.ProcessEnv = process.env): string {
  const id = env.GATEWAY_REPLICA_ID?.trim();
  return id ? id : `${hostname()}-${process.pid}`;
}
