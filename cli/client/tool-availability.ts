/**
 * Whether clients can see and call a tool that `GET /capabilities` lists: it
 * lists them all, with why some are held out. Every client program (the
 * one-shot commands, the REPL's completions, the TUI) asks here, so none
 * presents a held-out tool as callable.
 */
import type { BackendRecord, ToolInfo } from './api-types.js';

/** Why clients neither see nor call the tool, in a few words; undefined when they can. */
export function whyHidden(t: ToolInfo): string | undefined {
  if (t.filtered) return 'filtered';
  if (t.quarantined) return 'quarantined';
  if (t.hidden_by !== undefined) return `${t.hidden_by} keeps the name`;
  if (t.name_error !== undefined) return 'invalid name';
  return undefined;
}

export const isCallable = (t: ToolInfo): boolean => whyHidden(t) === undefined;

/** The same, in full: what an operator reads on a tool's own page. */
export function whyHiddenInFull(t: ToolInfo): string | undefined {
  if (t.filtered) return 'a filter of its backend hides it';
  if (t.quarantined) return `quarantined (${t.pending}): clients get it once an operator approves its definition (gateway-client tools diff ${t.name})`;
  if (t.hidden_by !== undefined) return `${t.hidden_by} exposes the same name and keeps it (conflict strategy); clients get ${t.hidden_by}'s tool`;
  if (t.name_error !== undefined) return `${t.name_error}; give it a valid name under backends.${t.backend}.rename.tools`;
  return undefined;
}

/** What a backend lost to others, one line per winner: `fx keeps tools echo, add and prompt greet`. */
export function lostConflicts(b: BackendRecord): string[] {
  const byWinner = new Map<string, Map<string, string[]>>();
  for (const c of b.conflicts) {
    const kinds = byWinner.get(c.winner) ?? new Map<string, string[]>();
    kinds.set(c.kind, [...(kinds.get(c.kind) ?? []), c.name]);
    byWinner.set(c.winner, kinds);
  }
  return [...byWinner].map(
    ([winner, kinds]) => `${winner} keeps ${[...kinds].map(([kind, names]) => `${kind}${names.length > 1 ? 's' : ''} ${names.join(', ')}`).join(' and ')}`,
  );
}
