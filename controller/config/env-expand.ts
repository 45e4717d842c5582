/**
 * `${VAR}` and `${VAR:-default}` expansion in every string of the parsed
 * config. `$${` escapes a literal `${`. An unset variable without a default is
 * an error that names the variable and the key path where it was used.
 */
import type { ConfigProblem } from '../../schemas/errors.js';
import { mapStrings } from '../../runtime/map-strings.js';

const PATTERN = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export function expandEnv(value: unknown, env: NodeJS.ProcessEnv, problems: ConfigProblem[]): unknown {
  return mapStrings(value, (s, path) => expandString(s, env, problems, path));
}

function expandString(s: string, env: NodeJS.ProcessEnv, problems: ConfigProblem[], path: readonly string[]): string {
  if (!s.includes('${')) return s;
  return s.replace(PATTERN, (match, name: string | undefined, fallback: string | undefined) => {
    if (match === '$${') return '${';
    const v = env[name!];
    if (v !== undefined && v !== '') return v;
    if (fallback !== undefined) return fallback;
    // An empty value counts as missing (an empty credential is a mistake), but say which it is.
    const what = v === '' ? 'is empty' : 'is not set';
    problems.push({ path: path.join('.'), message: `environment variable ${name} ${what} (use \${${name}:-default} for a default)` });
    return '';
  });
}
