/**
 * Which gateway a client talks to: `-s/--server`, else `$GATEWAY_URL`, else
 * the URL of the running `default` session, else of the only running
 * session, else http://127.0.0.1:9000. gateway-client and the TUI both start
 * from this (the TUI's server list: cli/servers/server-choices.ts). A
 * session whose management API has a port of its own says so in its file:
 * management calls go there, MCP calls to its MCP port; a URL given by hand
 * is used for both.
 */
import { defaultLocalSession } from '../sessions/default-session.js';
import { sessionManagementUrl, sessionUrl } from '../sessions/session-record.js';

export const FALLBACK_SERVER_URL = 'http://127.0.0.1:9000';

/** The gateway whose management API a client calls. */
export function resolveServerUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return resolveWith(flag, env, sessionManagementUrl);
}

/** The gateway whose MCP endpoint (`/mcp`) a client calls. */
export function resolveMcpServerUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return resolveWith(flag, env, sessionUrl);
}

function resolveWith(flag: string | undefined, env: NodeJS.ProcessEnv, urlOf: typeof sessionManagementUrl): string {
  if (flag) return flag;
  if (env.GATEWAY_URL) return env.GATEWAY_URL;
  const session = defaultLocalSession(env);
  return session ? urlOf(session.record) : FALLBACK_SERVER_URL;
}

/**
 * The gateway's base URL from what a user may type: `host:port`, a base URL,
 * or one ending in /mcp, /sse or /manage/v1. Throws on anything else.
 */
export function normaliseServerUrl(input: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `http://${input}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`Invalid server URL: ${input}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`Invalid server URL: ${input} (http or https only)`);
  const path = url.pathname.replace(/\/+$/, '').replace(/\/(mcp|sse|manage\/v1)$/, '');
  return `${url.origin}${path}`;
}
