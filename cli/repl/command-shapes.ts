/** The command table as completion needs it: each command's words and option spellings, read from clipanion. */
import type { Cli } from 'clipanion';
import type { ClientContext } from '../client-commands/client-command.js';
import type { CommandShape } from './completer.js';

export function commandShapes(cli: Cli<ClientContext>): CommandShape[] {
  return cli.definitions().map((d) => {
    // `path` is the usage line's command part, e.g. "gateway-client backends show".
    const path = d.path.split(' ').slice(1);
    // An option's definition reads like "-s,--server URL" (a value, named by cli/usage-cli.ts) or "--all" (a flag).
    const spellings = (definition: string) => definition.split(' ')[0].split(',');
    const options = d.options.flatMap((o) => spellings(o.definition));
    const valueOptions = new Set(d.options.filter((o) => o.definition.includes(' ')).flatMap((o) => spellings(o.definition)));
    return { path, options, valueOptions };
  });
}
