/** The gateway's identity, reported to backends, MCP clients, /health and /status. */
import { existsSync, readFileSync } from 'node:fs';

// Source (runtime/) and build (dist/runtime/) sit at different depths below package.json.
const pkgUrl = [new URL('../package.json', import.meta.url), new URL('../../package.json', import.meta.url)].find((u) => existsSync(u))!;
const pkg = JSON.parse(readFileSync(pkgUrl, 'utf8')) as { name: string; version: string };

export const GATEWAY_NAME = 'mcp-gateway';
export const GATEWAY_VERSION: string = pkg.version;
