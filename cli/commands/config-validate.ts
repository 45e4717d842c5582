/**
 * `gateway config validate <file>`: for CI. Checks a config against the
 * schema (with env expansion) and exits non-zero listing every problem.
 */
import { Command, Option } from 'clipanion';
import { count } from '../output/plural.js';

export class ConfigValidateCommand extends Command {
  static override paths = [['config', 'validate']];
  static override usage = Command.Usage({
    description: 'Validate a config file against the schema',
    details: 'Exits 0 when valid, 1 with one line per problem (key path and line) otherwise. `secret:` references are not resolved.',
    examples: [['Validate in CI', 'gateway config validate config.yaml']],
  });

  file = Option.String({ required: true });

  async execute(): Promise<number> {
    // Loaded on use: the validator is the expensive part of starting `gateway`.
    const [{ loadConfigFile }, { ConfigError }] = await Promise.all([import('../../controller/config/config-loader.js'), import('../../schemas/errors.js')]);
    try {
      const { config } = loadConfigFile(this.file);
      this.context.stdout.write(`${this.file}: valid (${count(Object.keys(config.backends).length, 'backend')})\n`);
      return 0;
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      this.context.stderr.write(`${this.file}: ${err.message}\n`);
      return 1;
    }
  }
}
