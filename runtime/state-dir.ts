/**
 * Where the gateway keeps state between runs: server session files, detached
 * server logs, OAuth tokens, pinned tool definitions, the client's REPL history. One place decides the
 * folder, so every command and the server agree on it.
 *
 * `$GATEWAY_STATE_DIR`, else `$XDG_STATE_HOME/mcp-gateway`, else `~/.local/state/mcp-gateway`.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GATEWAY_STATE_DIR) return env.GATEWAY_STATE_DIR;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'mcp-gateway');
  return join(env.HOME || homedir(), '.local', 'state', 'mcp-gateway');
}

/** `<state>/sessions`: one `<name>.json` per running server. */
export const sessionsDir = (env?: NodeJS.ProcessEnv): string => join(stateDir(env), 'sessions');

/** `<state>/logs`: logs of detached servers. */
export const logsDir = (env?: NodeJS.ProcessEnv): string => join(stateDir(env), 'logs');

/** `<state>/tokens`: OAuth tokens, one `<backend>.json` (mode 0600) per backend. */
export const tokensDir = (env?: NodeJS.ProcessEnv): string => join(stateDir(env), 'tokens');

/** `<state>/pins.json`: the pinned tool and prompt definitions (mode 0600). */
export const pinsFile = (env?: NodeJS.ProcessEnv): string => join(stateDir(env), 'pins.json');

/**
 * The config folder of the client tools (the TUI's multi-server file):
 * `$XDG_CONFIG_HOME/mcp-gateway`, else `~/.config/mcp-gateway`.
 */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'mcp-gateway');
  return join(env.HOME || homedir(), '.config', 'mcp-gateway');
}
