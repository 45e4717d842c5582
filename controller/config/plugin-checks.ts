/**
 * What the schema alone cannot say about `plugins:` entries: a name that is
 * no built-in needs a `module` (and is most likely a typo of a built-in), a
 * built-in's name cannot be given to a module, and the module must exist
 * (relative to the config file's folder). Like name-checks.ts, it runs on a
 * config that may be invalid elsewhere and assumes nothing about shapes.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ConfigProblem } from '../../schemas/errors.js';
import { BUILTIN_NAMES, isBuiltinName } from '../../schemas/plugins.js';
import { closestKey } from './key-suggestion.js';

type Loose = Record<string, unknown>;

export function pluginProblems(cfg: Loose, configDir?: string): ConfigProblem[] {
  const plugins = cfg.plugins;
  if (!Array.isArray(plugins)) return [];
  const problems: ConfigProblem[] = [];
  plugins.forEach((entry: unknown, i) => {
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return;
    const { name, module } = entry as Loose;
    if (typeof name !== 'string') return;
    const at = `plugins.${i}`;
    if (module === undefined) {
      if (isBuiltinName(name)) return;
      const meant = closestKey(name, BUILTIN_NAMES);
      const hint = meant === undefined ? `built-ins: ${BUILTIN_NAMES.join(', ')}` : `did you mean \`${meant}\`?`;
      problems.push({ path: `${at}.name`, message: `no built-in plugin '${name}' (${hint}); a plugin of your own needs \`module\`` });
      return;
    }
    if (isBuiltinName(name)) {
      problems.push({ path: `${at}.name`, message: `'${name}' is a built-in plugin; give the module a name of its own` });
      return;
    }
    if (typeof module === 'string' && module !== '' && configDir !== undefined && !existsSync(resolve(configDir, module))) {
      problems.push({ path: `${at}.module`, message: `no such file: ${resolve(configDir, module)}` });
    }
  });
  return problems;
}
