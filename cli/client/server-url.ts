/**
 * Which gateway a client talks to: `-s/--server`, else `$GATEWAY_URL`, else
 * the URL of the running `default` session, else http://127.0.0.1:9000.
 */
import { readSession } from '../sessions/session-files.js';
import { DEFAULT_SESSION_NAME, sessionUrl } from '../sessions/session-record.js';

export const FALLBACK_SERVER_URL = 'http://127.0.0.1:9000';

export function resolveServerUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return flag;
  if (env.GATEWAY_URL) return env.GATEWAY_URL;
  const session = readSession(DEFAULT_SESSION_NAME, env);
  return session?.running ? sessionUrl(session.record) : FALLBACK_SERVER_URL;
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
