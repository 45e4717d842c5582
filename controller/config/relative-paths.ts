/**
 * A relative path in the config means relative to the config file's folder,
 * wherever the gateway was started from: the same file gives the same
 * gateway. Paths are made absolute once, at load, so every user of the config
 * (process launch, container plan, audit, logging, skills, plugin modules) sees one answer.
 *
 * A stdio backend's working directory defaults to that folder too, so its
 * relative `args` (`node node_modules/x/index.js`) name files beside the
 * config; they stay as written, since only the backend knows which
 * arguments are paths, and it resolves them against its working directory.
 */
import { isAbsolute, resolve } from 'node:path';
import type { GatewayConfig } from '../../schemas/config.js';

export function resolveConfigPaths(config: GatewayConfig, configDir: string): void {
  for (const spec of Object.values(config.backends)) {
    if (spec.type !== 'stdio') continue;
    spec.cwd = resolve(configDir, spec.cwd ?? '.');
    // A bare name (`node`, `npx`) is looked up on PATH; only a command written as a path is a file here.
    if (isPathLike(spec.command)) spec.command = resolve(configDir, spec.command);
  }
  for (const plugin of config.plugins) if (plugin.module !== undefined) plugin.module = resolve(configDir, plugin.module);
  config.audit.file = resolve(configDir, config.audit.file);
  if (config.logging.file !== undefined) config.logging.file = resolve(configDir, config.logging.file);
  if (config.skills.directory !== undefined) config.skills.directory = resolve(configDir, config.skills.directory);
  const socket = config.containers.socket;
  // A plain socket path; `unix://` and `tcp://` addresses are written absolute.
  if (socket !== undefined && !/^[a-z]+:\/\//.test(socket)) config.containers.socket = resolve(configDir, socket);
}

function isPathLike(command: string): boolean {
  return !isAbsolute(command) && /[\\/]/.test(command);
}
