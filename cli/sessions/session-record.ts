/**
 * A server session: one running `gateway server`, described by the file
 * `<state>/sessions/<name>.json` that the server writes once it listens and
 * removes when it exits. `gateway status`, `gateway stop` and the client's
 * default server URL read these files.
 */
import { join } from 'node:path';
import { sessionsDir } from '../../runtime/state-dir.js';

export interface SessionRecord {
  name: string;
  pid: number;
  host: string;
  port: number;
  /** The management API's own listener (`server.management.port`); absent when it shares host and port. */
  management_host?: string;
  management_port?: number;
  /** Absolute path of the config file the server loaded. */
  config: string;
  /** Where a detached server's output goes; null for a foreground server (its terminal). */
  log_file: string | null;
  /** ISO 8601, when the server started listening. */
  started_at: string;
}

/** Session names: lower-case letters, digits and dashes, up to 32 characters. */
export const SESSION_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;
export const DEFAULT_SESSION_NAME = 'default';

/** Null when `name` is a valid session name, else why not. */
export function sessionNameProblem(name: string): string | null {
  return SESSION_NAME_PATTERN.test(name)
    ? null
    : `Invalid session name "${name}": use 1 to 32 lower-case letters, digits or dashes, starting with a letter or digit`;
}

export function sessionFile(name: string, env?: NodeJS.ProcessEnv): string {
  return join(sessionsDir(env), `${name}.json`);
}

/** The base URL of the session's MCP endpoints (`/mcp`, `/sse`). */
export function sessionUrl(s: Pick<SessionRecord, 'host' | 'port'>): string {
  const host = s.host === '0.0.0.0' ? '127.0.0.1' : s.host === '::' ? '::1' : s.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${s.port}`;
}

/** The base URL of the session's management API: its own listener when it has one, else the MCP one. */
export function sessionManagementUrl(s: Pick<SessionRecord, 'host' | 'port' | 'management_host' | 'management_port'>): string {
  return s.management_port === undefined ? sessionUrl(s) : sessionUrl({ host: s.management_host ?? s.host, port: s.management_port });
}

/** Parses a session file's text; null when it is not a session record (a broken or foreign file). */
export function parseSessionRecord(text: string): SessionRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const r = value as Record<string, unknown>;
  const ok =
    typeof r.name === 'string' &&
    Number.isInteger(r.pid) &&
    (r.pid as number) > 0 &&
    typeof r.host === 'string' &&
    Number.isInteger(r.port) &&
    typeof r.config === 'string' &&
    (typeof r.log_file === 'string' || r.log_file === null) &&
    typeof r.started_at === 'string' &&
    !Number.isNaN(Date.parse(r.started_at)) &&
    (r.management_port === undefined || (Number.isInteger(r.management_port) && typeof r.management_host === 'string'));
  return ok ? (value as SessionRecord) : null;
}
