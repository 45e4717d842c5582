/**
 * The servers a TUI can talk to, in the order it lists them: the servers file,
 * the `--server` given on the command line (when the file does not already
 * name that URL), the running local sessions (`gateway status`) and, when
 * nothing else names one, the default URL gateway-client would use
 * (cli/client/server-url.ts: the `default` or only running session), or the
 * first running session when that default is only the fallback URL.
 */
import { readSessions } from '../sessions/session-files.js';
import { sessionManagementUrl } from '../sessions/session-record.js';
import { FALLBACK_SERVER_URL, normaliseServerUrl, resolveServerUrl } from '../client/server-url.js';
import type { ServersFile } from './servers-file.js';
import { isLoopbackHost } from '../../runtime/net/loopback.js';

export type ServerSource = 'file' | 'flag' | 'session' | 'default';

export interface ServerChoice {
  name: string;
  /** Normalised base URL. */
  url: string;
  token?: string;
  source: ServerSource;
  /** For a local session: its log file (detached servers only). */
  logFile?: string | null;
}

export interface ChoiceOptions {
  file: ServersFile;
  /** `--server`. */
  server?: string;
  /** `--token`: for the `--server` URL, and for any local (loopback) server the file gives no token. */
  token?: string;
  env?: NodeJS.ProcessEnv;
}

/** Every server to offer, and which one is active at start. */
export function serverChoices(opts: ChoiceOptions): { choices: ServerChoice[]; active: ServerChoice } {
  const env = opts.env ?? process.env;
  const fallbackToken = opts.token || env.GATEWAY_MGMT_TOKEN || undefined;
  // The fallback token is meant for the gateway named on the command line or this machine's:
  // a remote entry of the file without a token of its own must not be sent it.
  const choices: ServerChoice[] = opts.file.servers.map((s) => {
    const url = normaliseServerUrl(s.url);
    return { name: s.name, url, token: s.token || (isLoopbackHost(new URL(url).hostname) ? fallbackToken : undefined), source: 'file' };
  });
  const known = (url: string) => choices.find((c) => c.url === url);

  let active: ServerChoice | undefined;
  if (opts.server) {
    const url = normaliseServerUrl(opts.server);
    active = known(url);
    if (active && opts.token) active.token = opts.token;
    if (!active) choices.push((active = { name: new URL(url).host, url, token: fallbackToken, source: 'flag' }));
  }

  for (const s of readSessions(env)) {
    if (!s.running) continue;
    const url = sessionManagementUrl(s.record);
    const same = known(url);
    if (same) same.logFile ??= s.record.log_file;
    else choices.push({ name: `session/${s.record.name}`, url, token: fallbackToken, source: 'session', logFile: s.record.log_file });
  }

  active ??= choices.find((c) => c.source === 'file' && c.name === opts.file.active) ?? choices.find((c) => c.source === 'file');
  if (!active) {
    const url = normaliseServerUrl(resolveServerUrl(undefined, env));
    // Nothing names a server but a local one runs: open it rather than a URL where nothing answers.
    const fallback = url === normaliseServerUrl(FALLBACK_SERVER_URL) ? choices.find((c) => c.source === 'session') : undefined;
    active = known(url) ?? fallback;
    if (!active) choices.push((active = { name: new URL(url).host, url, token: fallbackToken, source: 'default' }));
  }
  return { choices, active };
}
