/**
 * What `gateway server` prints once it listens: a few aligned lines for a
 * person (unchanged since the first release: scripts read them), or, with
 * `--log-format json`, one JSON line like the log lines
 * around it (pino's `level` and `time`), so a log collector can parse the
 * whole output. Field names are documented in docs/cli.md.
 */
import { GATEWAY_VERSION } from '../../runtime/version.js';

export interface BannerInfo {
  url: string;
  /** The management API's base URL: `url`, or its own listener's (`server.management.port`). */
  managementUrl: string;
  session: string;
  pid: number;
}

export function textBanner(b: BannerInfo): string {
  return [
    `MCP gateway ${GATEWAY_VERSION} is listening`,
    `  Streamable HTTP  ${b.url}/mcp`,
    `  SSE              ${b.url}/sse`,
    `  Management API   ${b.managementUrl}/manage/v1`,
    '',
  ].join('\n');
}

export function jsonBanner(b: BannerInfo): string {
  const line = {
    level: 30,
    time: Date.now(),
    pid: b.pid,
    msg: 'listening',
    version: GATEWAY_VERSION,
    session: b.session,
    url: b.url,
    mcp_url: `${b.url}/mcp`,
    sse_url: `${b.url}/sse`,
    management_url: `${b.managementUrl}/manage/v1`,
  };
  return `${JSON.stringify(line)}\n`;
}
