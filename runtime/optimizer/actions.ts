/**
 * What a word asks to do to things: read them, create, change, delete, run
 * or stop something, send a message. Word vectors cannot tell these apart
 * (opposites share their contexts: "add" and "remove" are 0.68 alike, and
 * "remember" and "forget" 0.86), so a word of one action never stands for a
 * word of another (semantic-match.ts), and a tool whose name does another
 * action than the request asks for is not what it asks for (tool-index.ts).
 *
 * Only words that say one action whatever the sentence: "open" (a file or an
 * issue), "start" (a process or a new thing) and "close" (a page or an
 * issue) are in none.
 */

export type Action = 'read' | 'create' | 'change' | 'delete' | 'run' | 'stop' | 'send';

const VERBS: Record<Action, string> = {
  read: 'get read show view list find search fetch retrieve look lookup display describe inspect query see browse count explain analyze analyse tell',
  create: 'create add new make insert register generate build remember memorize save store record note write append attach upload put keep',
  change: 'update edit modify change set rename patch replace adjust alter amend revise toggle switch move',
  delete: 'delete remove drop erase destroy forget purge wipe uninstall unlink trash discard clear clean',
  run: 'run execute exec invoke launch trigger',
  stop: 'stop kill terminate cancel abort halt',
  send: 'send post reply notify share dm email message',
};

/** How much harm an action can do, for ranking (read nothing; delete and stop lose work). */
export const HARM: Record<Action, number> = { read: 0, create: 1, send: 1, change: 2, run: 2, stop: 3, delete: 3 };

/** Irregular forms the suffix rules below do not make. */
const IRREGULAR: Record<string, string> = {
  got: 'get',
  gotten: 'get',
  shown: 'show',
  found: 'find',
  seen: 'see',
  saw: 'see',
  made: 'make',
  built: 'build',
  wrote: 'write',
  written: 'write',
  kept: 'keep',
  forgot: 'forget',
  forgotten: 'forget',
  ran: 'run',
  sent: 'send',
  told: 'tell',
};

const ACTION_OF = buildTable();

/** The action a word names (also as "deleting", "removed"), or undefined. */
export function actionOf(word: string): Action | undefined {
  return ACTION_OF.get(word);
}

function buildTable(): Map<string, Action> {
  const table = new Map<string, Action>();
  const byVerb = new Map<string, Action>();
  for (const [action, verbs] of Object.entries(VERBS) as Array<[Action, string]>) {
    for (const verb of verbs.split(' ')) {
      byVerb.set(verb, action);
      for (const form of inflections(verb)) if (!table.has(form)) table.set(form, action);
    }
  }
  for (const [form, verb] of Object.entries(IRREGULAR)) table.set(form, byVerb.get(verb)!);
  return table;
}

/**
 * The word, its -ed and -ing forms (a final e dropped, a final consonant
 * doubled: "running", "dropped"). Not the -s form: "records", "notes",
 * "changes" in a request are mostly things, not actions.
 */
function inflections(verb: string): string[] {
  const stem = verb.endsWith('e') ? verb.slice(0, -1) : verb;
  const doubled = /[^aeiou][aeiou][bdgmnprt]$/.test(verb) ? verb + verb.at(-1)! : verb;
  const ed = /[^aeiou]y$/.test(verb) ? `${verb.slice(0, -1)}ied` : `${stem}ed`;
  return [...new Set([verb, ed, `${stem}ing`, `${doubled}ing`, `${doubled}ed`])];
}
