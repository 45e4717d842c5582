/**
 * `${VAR}` and `${VAR:-default}` expansion in every string of the parsed
 * config. `$${` escapes a literal `${`. An unset variable without a default is
 * an error that names the variable and the key path where it was used.
 */
import type { ConfigProblem } from '../schemas/errors.js';

const PATTERN = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export function expandEnv(value: unknown, env: NodeJS.ProcessEnv, problems: ConfigProblem[], path: string[] = []): unknown {
  if (typeof value === 'string') return expandString(value, env, problems, path);
  if (Array.isArray(value)) return value.map((v, i) => expandEnv(v, env, problems, [...path, String(i)]));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = expandEnv(v, env, problems, [...path, k]);
    return out;
  }
  return value;
}

function expandString(s: string, env: NodeJS.ProcessEnv, problems: ConfigProblem[], path: string[]): string {
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
