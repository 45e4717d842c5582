/**
 * The network of backends that opt into `network: bridge`: one the gateway
 * creates (labelled, so `gateway clean --all` can remove it), rather than
 * the runtime's default network shared with unrelated containers.
 */
import type { ContainerRuntime } from './container-runtime.js';
import { daemonStatus } from './errors.js';
import { BRIDGE_NETWORK } from './hardening.js';
import { managedLabels } from './labels.js';

export async function ensureBridgeNetwork(runtime: ContainerRuntime): Promise<void> {
  try {
    await runtime.docker.getNetwork(BRIDGE_NETWORK).inspect();
    return;
  } catch (err) {
    if (daemonStatus(err) !== 404) throw err;
  }
  try {
    await runtime.docker.createNetwork({ Name: BRIDGE_NETWORK, Driver: 'bridge', Labels: managedLabels() });
  } catch (err) {
    // Another gateway created it in the meantime.
    if (daemonStatus(err) !== 409) throw err;
  }
}
