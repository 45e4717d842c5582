/**
 * `containers.socket` from a gateway's config, for the commands that reach
 * the container daemon without a gateway in between: `containers …` and
 * `pods …`, and `gateway stop` cleaning up after a server it had to kill.
 * Only that key is read (with `${VAR}` expanded); the rest of the file does
 * not matter here, so it is neither validated nor resolved.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { expandEnv } from '../../controller/config/env-expand.js';
import type { ConfigProblem } from '../../schemas/errors.js';
import { defaultLocalSession } from '../sessions/default-session.js';

/** The socket a config file names, if any; throws when the file cannot be read or parsed. */
export function configuredSocket(configPath: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const config = parse(readFileSync(configPath, 'utf8')) as { containers?: { socket?: unknown } } | null;
  const socket = config?.containers?.socket;
  if (typeof socket !== 'string' || socket === '') return undefined;
  const problems: ConfigProblem[] = [];
  const expanded = expandEnv(socket, env, problems) as string;
  return problems.length === 0 ? expanded : undefined;
}

/**
 * The socket of the config a local daemon command means: `--config FILE`
 * when given (an unreadable file is an error), else the config of the local
 * gateway session gateway-client would talk to (cli/sessions/default-session.ts).
 */
export function localConfiguredSocket(explicitConfig: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (explicitConfig !== undefined) return configuredSocket(explicitConfig, env);
  const session = defaultLocalSession(env);
  if (!session) return undefined;
  try {
    return configuredSocket(session.record.config, env);
  } catch {
    return undefined; // the session's file moved or broke since it started: discover as without one
  }
}
