/**
 * Query expansion: words people use for what tools call otherwise ("how high
 * above sea level" → `elevation`, "remove" → `delete`, "repo" →
 * `repository`). Each line is a group of words (a phrase's words all count)
 * that may stand for one another in a tool request; a query word brings in the
 * other words of its groups, at a lower weight than the words it typed
 * (tool-index.ts).
 *
 * The table was written from the vocabulary of tool catalogs in general;
 * its last additions (undo, watch, column, …) came from requests of the
 * bench's tuning half that it missed. The bench measures what it adds on the
 * other half (bench/optimizer/quality.ts).
 */
import { splitWords, termOf, ALL_STEPS } from './text-analysis.js';

const GROUPS: readonly string[] = [
  // What is done
  'create make new add start setup generate build register insert open',
  'get fetch retrieve read show view see display obtain lookup check inspect describe detail info',
  'list all enumerate browse every show',
  'search find look lookup query seek locate discover',
  'delete remove erase drop destroy trash discard purge wipe unlink rm forget',
  'update edit modify change patch alter adjust amend revise set',
  'send post notify share dm reply',
  'run execute exec invoke launch trigger start',
  'stop kill terminate end halt cancel abort',
  'move rename relocate transfer',
  'copy duplicate clone fork',
  'download save fetch pull',
  'upload push publish put attach',
  'merge combine integrate',
  'close resolve finish complete done',
  'navigate go visit browse open load goto',
  'screenshot capture snapshot screen snap picture',
  'click press tap',
  'type enter fill input key',
  'comment reply note remark respond',
  'assign allocate delegate',
  'remember memory store save note recall observation knowledge fact',
  'schedule book calendar plan',
  'write save store put',
  'summarize summary overview',
  'count many number total',
  'compare diff difference',
  'undo reopen revert restore',
  'watch monitor track alert',
  'evaluate javascript js script',
  // What it is done to
  'file document doc',
  'folder directory dir',
  'repository repo codebase project',
  'issue ticket bug task problem',
  'pull request pr merge request mr',
  'commit revision change',
  'message chat post text dm',
  'channel room chat conversation',
  'user person member people account profile who',
  'page website site webpage url link',
  'web internet online website',
  'email mail inbox gmail',
  'event meeting appointment',
  'database db sql',
  'table collection',
  'record row entry document item',
  'elevation altitude height high sea level',
  'directions route navigate drive driving way travel',
  'distance far how far mile km kilometer',
  'place location restaurant business spot venue nearby near shop cafe',
  'geocode coordinates address latitude longitude lat lng',
  'weather forecast temperature rain',
  'time clock date timezone',
  'log logs output console',
  'error exception crash failure',
  'deploy deployment release ship',
  'container pod docker',
  'entity thing node',
  'relation link connection relationship',
  'image picture photo png jpg',
  'invoice payment charge bill billing price',
  'customer client buyer',
  'contact lead person',
  'secret credential password token key',
  'pipeline ci build job workflow',
  'tab window',
  'network request traffic http',
  'library package dependency module',
  'documentation docs doc reference manual',
  'think reason reasoning thought step',
  'cluster namespace kubernetes k8s',
  'index collection schema',
  'column field attribute property',
  'org organization organisation',
];

/** Stem → the stems it may stand for (never itself). */
const EXPANSIONS = buildExpansions(GROUPS);

/** The stems that expand a query stem, or none. */
export function expansionsOf(term: string): readonly string[] {
  return EXPANSIONS.get(term) ?? [];
}

function buildExpansions(groups: readonly string[]): Map<string, string[]> {
  // Stop words (the "how" of "how far") would match nearly every tool: they are left out. So is a word
  // of two groups ("open" a file or a page, "start" a process or a new thing): which one is meant, only
  // the rest of the request says, and expanding both would pull in tools that do something else.
  const lines = groups.map((line) => [...new Set(splitWords(line).flatMap((w) => termOf(w, ALL_STEPS) ?? []))]);
  const groupsOf = new Map<string, number>();
  for (const terms of lines) for (const t of terms) groupsOf.set(t, (groupsOf.get(t) ?? 0) + 1);
  const out = new Map<string, Set<string>>();
  for (const line of lines) {
    const terms = line.filter((t) => groupsOf.get(t) === 1);
    for (const t of terms) {
      const set = out.get(t) ?? new Set<string>();
      for (const u of terms) if (u !== t) set.add(u);
      out.set(t, set);
    }
  }
  return new Map([...out].map(([k, v]) => [k, [...v]]));
}
