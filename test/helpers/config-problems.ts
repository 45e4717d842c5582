/** The problems a config text has, as `path: message` lines ([] when it loads), with the environment the test gives. */
import { parseConfigText } from '../../controller/config/config-loader.js';
import { ConfigError } from '../../schemas/errors.js';

export function configProblems(yaml: string, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    parseConfigText(yaml, { env });
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.problems.map((p) => `${p.path}: ${p.message}`);
  }
}
