/**
 * Where backend notifications meet the plugin chain: between backend traffic
 * and the client fan-out (app/runtime.ts puts it there), each notification a
 * backend sends passes the running chain's notification hooks before any
 * client hears it (a log message's text is guarded as a result's is). With
 * no chain, it passes untouched; requests a backend makes pass as they are.
 */
import type { JSONRPCRequest, Notification } from '@modelcontextprotocol/client';
import type { BackendTrafficTargets } from '../routing/backend-traffic.js';
import type { CallerContext, JsonObject, ProgressHandler } from '../routing/caller.js';
import type { PluginChain } from './plugin-chain.js';

export class GuardedRelay implements BackendTrafficTargets {
  constructor(
    private readonly targets: BackendTrafficTargets,
    /** The running chain (a reload replaces it), or none. */
    private readonly chain: () => PluginChain | undefined,
  ) {}

  notify(backend: string, notification: Notification, inFlight: readonly CallerContext[]): void {
    const chain = this.chain();
    const relayed = chain === undefined ? notification : chain.relay(backend, notification);
    if (relayed !== undefined) this.targets.notify(backend, relayed, inFlight);
  }

  requestAnyClient(request: JSONRPCRequest, signal: AbortSignal, onprogress?: ProgressHandler): Promise<JsonObject> {
    return this.targets.requestAnyClient(request, signal, onprogress);
  }
}
