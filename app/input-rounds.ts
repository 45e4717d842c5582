/**
 * Part of step 4 of start-up: calls that need their client's input, across
 * rounds and protocol revisions (runtime/rounds/). Their bounds and the
 * seal of `requestState` follow the running config; without a configured
 * key, replicas that share sessions share a random one through Redis, and
 * a repeat that reaches a replica not holding its call is handed to the one
 * that does.
 */
import type { GatewayController } from '../controller/gateway-controller.js';
import type { Logger } from '../runtime/observability/logging/logger.js';
import { roundLimitsOf } from '../runtime/rounds/round-limits.js';
import { SealSource } from '../runtime/rounds/seal-source.js';
import type { StateSeal } from '../runtime/rounds/state-seal.js';
import { StatelessRounds } from '../runtime/rounds/stateless-rounds.js';
import type { Runtime } from './runtime.js';
import { RedisRoundPeers } from '../runtime/cluster/redis-round-peers.js';
import { toJsonRpcError } from '../api/error-mapping.js';

export interface InputRounds {
  rounds: StatelessRounds;
  /** The seal of the running config (also what task ids are sealed with: runtime/tasks/task-handles.ts). */
  seal: () => StateSeal;
}

export function buildInputRounds(runtime: Runtime, controller: GatewayController, log: Logger): InputRounds {
  const settings = () => controller.config.server.input_rounds;
  const limits = () => roundLimitsOf(settings());
  runtime.router.setRoundLimits(limits);
  runtime.router.setSignIns(runtime.signIns);
  const seals = new SealSource(settings);
  const cluster = runtime.shared?.cluster;
  if (cluster && settings().state_key === undefined) seals.shareThrough(() => cluster.sharedRequestStateKey(), log);
  const peers = cluster && new RedisRoundPeers(cluster, log);
  const rounds = new StatelessRounds({
    seal: () => seals.current(),
    limits,
    log,
    peers,
    toWire: (err) => {
      const e = toJsonRpcError(err);
      return { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) };
    },
    onInputTimeout: (backend, waitedMs) =>
      controller.events.emit({
        stage: 'input_timed_out',
        backend: backend ?? '',
        severity: 'warning',
        message: `a call waited ${waitedMs / 1000} s for its client's input and was cancelled${backend ? ` at ${backend}` : ''}`,
        details: { waited_s: waitedMs / 1000 },
      }),
  });
  peers?.serve((request, signal, onprogress) => rounds.resumeForPeer(request, signal, onprogress));
  return { rounds, seal: () => seals.current() };
}
