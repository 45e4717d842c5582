/**
 * Starts the real gateway command line (`gateway server`, on this Node) in front
 * of one backend, from a temporary config, for the runner and the client driver.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { BackendSpec, GatewayConfig } from '../../schemas/config.js';
import { startGatewayCli, type GatewayProcess } from '../helpers/gateway-cli.js';

/** A config file: every key optional (the loader fills in defaults), the rest as typed as the real thing. */
type ConfigFile = { [K in keyof GatewayConfig]?: GatewayConfig[K] extends Record<string, unknown> ? Partial<GatewayConfig[K]> : GatewayConfig[K] };

/** The backend's name in the config; with `first-wins` it prefixes nothing. */
export const BACKEND_NAME = 'conformance';

export interface GatewayUnderTest {
  /** The gateway's streamable HTTP endpoint, `http://127.0.0.1:<port>/mcp`. */
  mcpUrl: string;
  process: GatewayProcess;
  /** Stops the gateway and writes what it printed to `<dir>/gateway.log`. */
  stop(): Promise<void>;
}

/**
 * Audit, hot reload and containers are off (nothing to watch, nothing to
 * isolate: the backends are our own fixture or the suite's scenario servers).
 * `first-wins` keeps the backend's names as they are: the suite calls tools and
 * prompts by their exact names.
 */
export function gatewayConfig(backend: BackendSpec): ConfigFile {
  return {
    server: { host: '127.0.0.1', port: 0 },
    audit: { enabled: false },
    feature_flags: { hot_reload: false },
    containers: { enabled: false },
    conflict_resolution: { strategy: 'first-wins' },
    backends: { [BACKEND_NAME]: backend },
  };
}

/** `env` is added to this process's environment for the gateway (e.g. its own GATEWAY_STATE_DIR). */
export async function startGatewayUnderTest(backend: BackendSpec, dir: string, env: NodeJS.ProcessEnv = {}): Promise<GatewayUnderTest> {
  mkdirSync(dir, { recursive: true });
  const configPath = join(dir, 'config.yaml');
  writeFileSync(configPath, stringify(gatewayConfig(backend)));
  const gateway = await startGatewayCli({ args: ['--config', configPath, '--port', '0', '--log-format', 'json'], cwd: dir, env: { ...process.env, ...env } });
  return {
    mcpUrl: `${gateway.url}/mcp`,
    process: gateway,
    async stop() {
      await gateway.stop(5_000);
      writeFileSync(join(dir, 'gateway.log'), `--- stdout\n${gateway.stdout()}\n--- stderr\n${gateway.stderr()}\n`);
    },
  };
}
