/** The `:` prompt: a view name (or alias) jumps to that view; `quit`, `help` and `reload` do what they say. */
import { VIEWS, type ViewName } from './ui-state.js';

export type CommandTarget = { view: ViewName } | { run: 'quit' | 'help' | 'reload' };

interface CommandName {
  name: string;
  aliases: string[];
  target: CommandTarget;
}

const VIEW_ALIASES: Record<ViewName, string[]> = {
  dashboard: ['dash', 'home'],
  backends: ['be', 'backend'],
  tools: ['tool'],
  resources: ['res', 'prompts'],
  sessions: ['sess', 'session'],
  events: ['ev', 'event'],
  skills: ['skill'],
  registry: ['reg'],
  servers: ['srv', 'ctx', 'server'],
  plugins: ['plugin', 'guard'],
};

export const COMMANDS: CommandName[] = [
  ...VIEWS.map((view) => ({ name: view, aliases: VIEW_ALIASES[view], target: { view } })),
  { name: 'reload', aliases: [], target: { run: 'reload' } },
  { name: 'help', aliases: [], target: { run: 'help' } },
  { name: 'quit', aliases: ['q', 'q!'], target: { run: 'quit' } },
];

/** The command a line names: exactly (name or alias), else by a prefix only one name has. */
export function resolveCommand(text: string): CommandTarget | undefined {
  const word = text.trim().toLowerCase();
  if (!word) return undefined;
  const exact = COMMANDS.find((c) => c.name === word || c.aliases.includes(word));
  if (exact) return exact.target;
  const byPrefix = COMMANDS.filter((c) => c.name.startsWith(word));
  return byPrefix.length === 1 ? byPrefix[0].target : undefined;
}

/** Names that start with the text typed. */
export function commandCandidates(text: string): string[] {
  const word = text.trim().toLowerCase();
  return COMMANDS.map((c) => c.name).filter((n) => n.startsWith(word));
}

/** Tab: the text completed as far as the candidates agree. */
export function completeCommand(text: string): string {
  const candidates = commandCandidates(text);
  if (candidates.length === 0) return text;
  if (candidates.length === 1) return candidates[0];
  let common = candidates[0];
  for (const c of candidates) while (!c.startsWith(common)) common = common.slice(0, -1);
  return common.length > text.trim().length ? common : text;
}
