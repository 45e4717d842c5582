/**
 * The optimizer's data set: real servers' catalogs (data/catalogs/, as their
 * `tools/list` answered) and labelled requests (data/requests.jsonl: a
 * request in a user's words, the tools that do it as `server/tool`, and its
 * split: `dev` for tuning; `test`, `fresh` and `heldout` never tuned on).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/client';
import type { IndexedTool } from '../../runtime/optimizer/tool-index.js';
import { CATALOGS_DIR, DATA_DIR } from './servers.js';

export interface Catalog {
  server: string;
  package: string;
  version: string;
  tools: Tool[];
}

export const SPLITS = ['dev', 'test', 'fresh', 'heldout'] as const;
export type Split = (typeof SPLITS)[number];
/** The splits never tuned on: their union is the figure to quote. */
export const HELD_OUT: readonly Split[] = ['test', 'fresh', 'heldout'];

export interface LabelledRequest {
  id: number;
  /**
   * `dev`: tuned on. Never tuned on: `test` (held out from the start), `fresh` (written after the lexical
   * search was tuned), `heldout` (written before the word vectors, action words and safety were added).
   */
  split: Split;
  request: string;
  /** Exposed names (prefix strategy: `<server>_<tool>`) of the tools that do what is asked. */
  expected: string[];
}

export function loadCatalogs(): Catalog[] {
  return readdirSync(CATALOGS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(CATALOGS_DIR, f), 'utf8')) as Catalog);
}

/** The tools as a gateway with conflict strategy `prefix` exposes them; `copies` > 1 repeats the catalog under other backend names (for scale). */
export function exposedTools(catalogs: Catalog[], copies = 1): IndexedTool[] {
  const out: IndexedTool[] = [];
  for (let copy = 0; copy < copies; copy++) {
    for (const c of catalogs) {
      const backend = copy === 0 ? c.server : `c${copy}_${c.server}`;
      for (const tool of c.tools) out.push({ name: `${backend}_${tool.name}`, tool: { ...tool, name: `${backend}_${tool.name}` }, backend, group: 'default' });
    }
  }
  return out;
}

export function loadRequests(catalogs: Catalog[]): LabelledRequest[] {
  const names = new Set(exposedTools(catalogs).map((t) => t.name));
  return readFileSync(join(DATA_DIR, 'requests.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const r = JSON.parse(line) as Omit<LabelledRequest, 'expected'> & { expected: string[] };
      const expected = r.expected.map((e) => e.replace('/', '_'));
      const unknown = expected.filter((e) => !names.has(e));
      if (unknown.length) throw new Error(`request ${r.id}: no such tool ${unknown.join(', ')}`);
      return { ...r, expected };
    });
}
