/**
 * What `gateway server` writes itself, not through the logger: the banner
 * once it listens and, when it cannot start, why. In the console's format
 * (runtime/observability/logging/console-format.ts): for a person, a few
 * aligned lines (the text banner unchanged since the first release) and the
 * error as one plain line; in JSON, one JSON line each, shaped like the log
 * lines around them (pino's `level`, `time`, `pid`, `msg`), so a log
 * collector can parse the whole output. Field names are documented in
 * docs/cli.md.
 */
import { GATEWAY_VERSION } from '../../runtime/version.js';
import type { LogFormat } from '../../runtime/observability/logging/console-format.js';

export interface BannerInfo {
  url: string;
  /** The management API's base URL: `url`, or its own listener's (`server.management.port`). */
  managementUrl: string;
  session: string;
}

/** pino's numbers for the levels used here. */
const LEVEL = { info: 30, error: 50 } as const;

export function banner(format: LogFormat, b: BannerInfo): string {
  if (format === 'pretty')
    return [
      `MCP gateway ${GATEWAY_VERSION} is listening`,
      `  Streamable HTTP  ${b.url}/mcp`,
      `  SSE              ${b.url}/sse`,
      `  Management API   ${b.managementUrl}/manage/v1`,
      '',
    ].join('\n');
  return jsonLine('info', 'listening', {
    version: GATEWAY_VERSION,
    session: b.session,
    url: b.url,
    mcp_url: `${b.url}/mcp`,
    sse_url: `${b.url}/sse`,
    management_url: `${b.managementUrl}/manage/v1`,
  });
}

export interface StartFailure {
  /** What went wrong, for a person: the error's message (a stack for an unexpected error). */
  message: string;
  /** The typed error's code (`listen_failed`, `config_invalid`…), when it has one. */
  code?: string;
  /** The typed error's details (the listen address, the config problems…). */
  details?: Record<string, unknown>;
}

/** Why the server did not start: one line (JSON: `level` 50, `msg`, `error` and `details` when the error is typed). */
export function startFailure(format: LogFormat, f: StartFailure): string {
  if (format === 'pretty') return `${f.message}\n`;
  return jsonLine('error', f.message, { ...(f.code !== undefined ? { error: f.code } : {}), ...(f.details !== undefined ? { details: f.details } : {}) });
}

function jsonLine(level: keyof typeof LEVEL, msg: string, fields: Record<string, unknown>): string {
  return `${JSON.stringify({ level: LEVEL[level], time: Date.now(), pid: process.pid, msg, ...fields })}\n`;
}
