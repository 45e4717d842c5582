/**
 * Runs a clipanion CLI like `cli.runExit`, except that a command line that
 * does not parse is a usage error: printed on stderr, exit code 2 (clipanion
 * prints it on stdout and exits 1).
 */
import { Cli, type BaseContext } from 'clipanion';
import { EXIT } from './output/exit-codes.js';

export async function runCli<C extends BaseContext>(cli: Cli<C>, argv: string[], context?: Partial<C>): Promise<number> {
  const full = { ...Cli.defaultContext, ...context } as C;
  let command;
  try {
    command = cli.process(argv, full);
  } catch (err) {
    full.stderr.write(cli.error(err, { colored: cli.enableColors ?? false }));
    return EXIT.usage;
  }
  return cli.run(command, full);
}
