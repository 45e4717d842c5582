/**
 * Tab completion for the REPL: command words from the command table, option
 * names of the command typed so far, and live names from the server where a
 * command takes one (a backend after `backends show`, a tool after
 * `tools call`…). Completed words get a trailing space, like a shell.
 */
import type { CompleterResult } from 'node:readline';
import { splitWords } from './split-words.js';
import type { NameSets } from './live-names.js';
import { OUTPUT_FORMATS } from '../output/format.js';
import { SEVERITIES } from '../../schemas/records.js';
import { CAPABILITY_TYPES } from '../../schemas/api.js';

export interface CommandShape {
  path: string[];
  /** Every spelling of every option, e.g. ['-s', '--server', '--arg']. */
  options: string[];
  /** The spellings of options followed by a value (`--arg key=value`), unlike flags (`--all`). */
  valueOptions: Set<string>;
}

/** Words the REPL itself understands besides the commands. */
export const REPL_WORDS = ['help', 'exit', 'quit'];

/** Which live names a command's first argument is. */
const ARGUMENT_NAMES: Record<string, keyof NameSets> = {
  'backends show': 'backends',
  'backends reconnect': 'backends',
  reauth: 'backends',
  revoke: 'backends',
  'tools call': 'tools',
  'tools diff': 'pendingTools',
  'tools approve': 'pendingTools',
  'resources read': 'resources',
  'prompts get': 'prompts',
  'skills enable': 'skills',
  'skills disable': 'skills',
};

const OPTION_VALUES: Record<string, (names: NameSets) => readonly string[]> = {
  '--backend': (n) => n.backends,
  '-o': () => OUTPUT_FORMATS,
  '--output': () => OUTPUT_FORMATS,
  '--severity': () => SEVERITIES,
  '--type': () => CAPABILITY_TYPES,
};

export function complete(line: string, commands: CommandShape[], names: NameSets): CompleterResult {
  const { words, partial } = splitWords(line);
  const candidates = candidatesFor(words, partial, commands, names);
  const hits = candidates.filter((c) => c.startsWith(partial));
  return [hits.map((h) => `${h} `), partial];
}

function candidatesFor(words: string[], partial: string, commands: CommandShape[], names: NameSets): readonly string[] {
  if (words[0] === 'help') return nextWords(words.slice(1), commands) ?? [];
  const next = nextWords(words, commands);
  if (next) return words.length === 0 ? [...next, ...REPL_WORDS] : next;
  const command = commands.find((c) => c.path.length > 0 && c.path.every((w, i) => words[i] === w));
  if (!command) return [];
  const rest = words.slice(command.path.length);
  const previous = rest[rest.length - 1];
  if (previous !== undefined && OPTION_VALUES[previous]) return OPTION_VALUES[previous](names);
  if (partial.startsWith('-')) return command.options;
  const kind = ARGUMENT_NAMES[command.path.join(' ')];
  const positionalGiven = rest.some((w, i) => !w.startsWith('-') && !(i > 0 && command.valueOptions.has(rest[i - 1])));
  return kind && !positionalGiven ? names[kind] : [];
}

/** The command words that can follow `words`, or undefined when `words` already name a command (or nothing). */
function nextWords(words: string[], commands: CommandShape[]): string[] | undefined {
  const below = commands.filter((c) => c.path.length > words.length && words.every((w, i) => c.path[i] === w));
  if (below.length === 0) return undefined;
  return [...new Set(below.map((c) => c.path[words.length]))];
}
