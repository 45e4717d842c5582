/**
 * clipanion's Cli with option values named in usage lines. clipanion writes
 * every option value as `#0` (`--limit #0`), in `--help`, in usage errors and
 * in the definitions the REPL's help and completion read; here it says what
 * the value is (`--limit N`). One table for every program, by long option
 * name; an option missing from it reads `VALUE`.
 */
import { Cli, type BaseContext } from 'clipanion';

const VALUE_NAMES: Record<string, string> = {
  '--arg': 'KEY=VALUE',
  '--backend': 'NAME',
  '--backend-name': 'NAME',
  '--config': 'FILE',
  '--group': 'NAME',
  '--host': 'HOST',
  '--json': 'JSON',
  '--limit': 'N',
  '--log-file': 'FILE',
  '--log-format': 'FORMAT',
  '--log-level': 'LEVEL',
  '--name': 'NAME',
  '--output': 'FORMAT',
  '--port': 'PORT',
  '--registry': 'NAME',
  '--search': 'TEXT',
  '--server': 'URL',
  '--servers-config': 'FILE',
  '--severity': 'LEVEL',
  '--since': 'TIME',
  '--socket': 'PATH',
  '--timeout': 'SECONDS',
  '--token': 'TOKEN',
  '--type': 'TYPE',
};

export class UsageCli<C extends BaseContext = BaseContext> extends Cli<C> {
  protected override getUsageByIndex(n: number, opts?: { detailed?: boolean; inlineOptions?: boolean }): ReturnType<Cli<C>['getUsageByIndex']> {
    const { usage, options } = super.getUsageByIndex(n, opts);
    return { usage: nameValues(usage), options: options.map((o) => ({ ...o, definition: nameValues(o.definition) })) };
  }
}

/** `-s,--server #0` → `-s,--server URL`. */
export function nameValues(text: string): string {
  return text.replace(/((?:-{1,2}[\w-]+)(?:,-{1,2}[\w-]+)*) #0/g, (_, names: string) => {
    const long = names.split(',').find((name) => name.startsWith('--'));
    return `${names} ${(long && VALUE_NAMES[long]) ?? 'VALUE'}`;
  });
}
