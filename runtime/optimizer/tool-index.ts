/**
 * The search index over the exposed tools (MiniSearch: BM25+ ranking, prefix
 * and typo-tolerant matching). Each tool is indexed by its name split into
 * words, its title, description, argument names and descriptions, and its
 * backend's name and group; a query is analysed the same way and expanded
 * with related words (synonyms.ts). Updated in place: only the tools whose
 * definition changed are removed and added again.
 */
import MiniSearch, { type SearchResult } from 'minisearch';
import type { Tool } from '@modelcontextprotocol/client';
import { ALL_STEPS, isStopWord, splitWords, termOf, type AnalysisSteps } from './text-analysis.js';
import { expansionsOf } from './synonyms.js';
import type { WordVectors } from './word-vectors.js';
import { HARM, actionOf, type Action } from './actions.js';
import { safetyOf } from './safety.js';
import { requestParts } from './request-values.js';
import { DEFAULT_SEMANTIC_TUNING, SemanticMatcher, type SemanticTuning, type ToolWords } from './semantic-match.js';

/** One tool as the index sees it. */
export interface IndexedTool {
  /** The exposed name (what a client calls). */
  name: string;
  tool: Tool;
  backend: string;
  group: string;
}

export interface ToolMatch {
  name: string;
  description: string;
  inputSchema: Tool['inputSchema'];
  backend: string;
  score: number;
  /** The tool's own annotations (readOnlyHint, destructiveHint, …), when it has any: what the caller weighs before calling. */
  annotations?: Tool['annotations'];
}

/** Which of the search's steps are on: all of them in the gateway; the bench switches them one by one. */
export interface SearchSteps extends AnalysisSteps {
  /** Name and title count more than the description, which counts more than argument texts. */
  fieldWeights: boolean;
  /** A query word of 4 letters or more matches the words it begins ("crea" → create). */
  prefix: boolean;
  /** A query word of 5 letters or more matches words one letter away (two from 10 letters: "isue" → issue). */
  fuzzy: boolean;
  /** A query word also looks for related words (synonyms.ts). */
  synonyms: boolean;
  /** Words of like meaning match (word vectors, semantic-match.ts), fused with BM25; only when the index has vectors. */
  vectors: boolean;
  /** Words that name an action (actions.ts) count less than the rest, and a tool whose name does another action ranks lower. */
  actions: boolean;
  /** Near ties go to read-only, then non-destructive tools (their annotations, safety.ts). */
  safety: boolean;
  /** A value in the request (a file name, URL, path, owner/name, hash, number: request-values.ts) is read as its kind; its own words count little. */
  values: boolean;
  /** The description's first sentence (what the tool does) is a field of its own, weighted above the rest of the description. */
  firstSentence: boolean;
  /** A tool whose name does the action the request asks for ranks a little higher (the verb agrees as well as the object). */
  sameAction: boolean;
}

export const ALL_SEARCH_STEPS: SearchSteps = {
  ...ALL_STEPS,
  fieldWeights: true,
  prefix: true,
  fuzzy: true,
  synonyms: true,
  vectors: true,
  actions: true,
  safety: true,
  values: true,
  firstSentence: true,
  sameAction: true,
};

const FIELDS = ['name', 'title', 'summary', 'description', 'args', 'backend'] as const;
type Field = (typeof FIELDS)[number];

/** The numbers of the ranking (the bench tries others on the tuning half of its requests). */
export interface SearchTuning {
  /** How much a match in each field counts (with `fieldWeights`). */
  fieldWeights: Record<Field, number>;
  /** How much one related word counts against the typed word, divided by the square root of how many it has. */
  expansionWeight: number;
  /** MiniSearch's BM25+ parameters: term saturation, length normalisation, the floor of a matching term. */
  bm25: { k: number; b: number; d: number };
  /**
   * Only the first words of a description are indexed (0: all). The first
   * sentences say what a tool does; pages of usage instructions after them
   * (some tools have 2,000 words) would otherwise match nearly any request.
   */
  descriptionWords: number;
  /** A typed word is expanded only when at most this many tools have it (a word the catalog speaks needs no help). */
  expandBelow: number;
  /** The share of the word-vector score in the fused one (the rest: BM25 divided by the best BM25 of the query). */
  semanticWeight: number;
  /** The weight of a request's word that names an action (the thing it is done to says more about which tool). */
  actionWordWeight: number;
  /** How much lower a tool whose name does another action than the request ranks (a share of its score). */
  actionConflictPenalty: number;
  /** How much more a read-only tool's score counts than one that may destroy (a non-destructive one: half as much more). */
  safetyMargin: number;
  /** Only a tool whose action does more harm than the one asked for ranks lower (actions.ts HARM). */
  harmOnly: boolean;
  semantic: SemanticTuning;
  /** How much more a tool whose name does the action asked for counts (a share of its score). */
  sameActionBonus: number;
  /** The weight of a value's own words ("draft" and "md" of draft.md); the words of its kind count fully. */
  valueWordWeight: number;
}

export const DEFAULT_TUNING: SearchTuning = {
  fieldWeights: { name: 3, title: 2, summary: 1.5, description: 1, args: 0.5, backend: 1.5 },
  expansionWeight: 0.6,
  // Classic BM25 (no BM25+ floor): a word matched once in a long text should not count for much.
  bm25: { k: 1.2, b: 0.75, d: 0 },
  descriptionWords: 60,
  expandBelow: 10,
  semanticWeight: 0.5,
  actionWordWeight: 0.5,
  actionConflictPenalty: 0.3,
  harmOnly: true,
  safetyMargin: 0.05,
  semantic: DEFAULT_SEMANTIC_TUNING,
  sameActionBonus: 0.1,
  valueWordWeight: 0.3,
};

/** MiniSearch's own ranking, the whole description indexed, every typed word expanded: the bench's starting point. */
export const PLAIN_TUNING: SearchTuning = {
  ...DEFAULT_TUNING,
  expansionWeight: 0.35,
  bm25: { k: 1.2, b: 0.7, d: 0.5 },
  descriptionWords: 0,
  expandBelow: Infinity,
};
/** Above this share of changed tools, building a new index is cheaper than patching the old one. */
const REBUILD_SHARE = 0.5;
/** Tools indexed between two turns of the event loop in a chunked build (a few milliseconds each). */
const BUILD_CHUNK = 50;
/** Tools given to the word-vector side between two turns of the event loop. */
const SEMANTIC_CHUNK = 500;

/** A tool in the index: as given, the signature it was indexed with, the actions its name does. */
interface Indexed {
  entry: IndexedTool;
  signature: string;
  actions: ReadonlySet<Action>;
}

/** The action a tool's name does: its first word that names one (`get_record` reads; "record" after it is a thing). */
function nameActions(name: string): ReadonlySet<Action> {
  return new Set(firstAction(splitWords(name)));
}

function firstAction(words: readonly string[]): Action[] {
  for (const w of words) {
    const action = actionOf(w);
    if (action) return [action];
  }
  return [];
}

export interface SearchOptions {
  limit: number;
  /** The tools the caller may see (default: all). */
  visible?: (name: string) => boolean;
}

export class ToolIndex {
  private mini: MiniSearch<IndexedTool>;
  /** The word-vector side, when the index has vectors and the step is on. */
  private semantic?: SemanticMatcher;
  /** Exposed name → the indexed entry and the signature it was indexed with. */
  private entries = new Map<string, Indexed>();

  constructor(
    private readonly steps: SearchSteps = ALL_SEARCH_STEPS,
    private readonly tuning: SearchTuning = DEFAULT_TUNING,
    private readonly vectors?: WordVectors,
  ) {
    this.mini = this.create();
    this.semantic = this.createSemantic();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Makes the index hold exactly these tools (at once: the bench and small catalogs). */
  replace(tools: readonly IndexedTool[]): void {
    const plan = this.plan(tools);
    if (plan.rebuild) {
      const mini = this.create();
      mini.addAll(plan.entries);
      const semantic = this.createSemantic();
      for (const e of plan.entries) semantic?.set(e.name, this.wordsOf(e));
      [this.mini, this.semantic] = [mini, semantic];
    } else this.patch(plan.stale, plan.fresh);
    this.entries = plan.next;
  }

  /**
   * The same, building a new index in chunks with the event loop free between
   * them (10,000 tools take seconds); the old index answers until the new one
   * is complete. Callers must not run two at once.
   */
  async replaceInChunks(tools: readonly IndexedTool[]): Promise<void> {
    const plan = this.plan(tools);
    if (plan.rebuild) {
      const mini = this.create();
      await mini.addAllAsync(plan.entries, { chunkSize: BUILD_CHUNK });
      const semantic = this.createSemantic();
      if (semantic) {
        for (let i = 0; i < plan.entries.length; i++) {
          if (i > 0 && i % SEMANTIC_CHUNK === 0) await new Promise((resolve) => setImmediate(resolve));
          semantic.set(plan.entries[i].name, this.wordsOf(plan.entries[i]));
        }
      }
      [this.mini, this.semantic] = [mini, semantic];
    } else this.patch(plan.stale, plan.fresh);
    this.entries = plan.next;
  }

  /** What a replace must do: patch the changed tools in, or build anew when most changed. */
  private plan(tools: readonly IndexedTool[]) {
    const next = new Map<string, Indexed>(
      tools.map((entry) => {
        const signature = signatureOf(entry);
        const old = this.entries.get(entry.name);
        return [entry.name, { entry, signature, actions: old?.signature === signature ? old.actions : nameActions(entry.name) }];
      }),
    );
    const stale = [...this.entries].filter(([name, old]) => next.get(name)?.signature !== old.signature).map(([name]) => name);
    const fresh = [...next.values()].filter(({ entry, signature }) => this.entries.get(entry.name)?.signature !== signature).map((e) => e.entry);
    const rebuild = stale.length + fresh.length > REBUILD_SHARE * Math.max(next.size, 1) || this.mini.dirtCount > this.mini.documentCount;
    return { next, stale, fresh, rebuild, entries: [...next.values()].map((e) => e.entry) };
  }

  private patch(stale: string[], fresh: IndexedTool[]): void {
    for (const name of stale) {
      this.mini.discard(name);
      this.semantic?.delete(name);
    }
    this.mini.addAll(fresh);
    for (const e of fresh) this.semantic?.set(e.name, this.wordsOf(e));
  }

  /** The best matches for a request in words, best first; nothing matching is an empty list. */
  search(query: string, opts: SearchOptions): ToolMatch[] {
    const words = this.analyse(query);
    const typed = [...new Set(words.map((w) => w.term))];
    if (typed.length === 0) return [];
    // A typed word with many related words gives each less weight, so it does not drown the other words of the query.
    const weights = new Map<string, number>(typed.map((t) => [t, Math.min(...words.filter((w) => w.term === t).map((w) => w.weight))]));
    if (this.steps.synonyms) {
      for (const t of typed) {
        if (this.tuning.expandBelow !== Infinity && this.documentFrequency(t) > this.tuning.expandBelow) continue;
        const related = expansionsOf(t).filter((r) => !weights.has(r) || weights.get(r)! < 1);
        const weight = (weights.get(t)! * this.tuning.expansionWeight) / Math.sqrt(related.length);
        for (const r of related) weights.set(r, Math.max(weights.get(r) ?? 0, weight));
      }
    }
    // Prefix and typo matching for the typed words only (a related word is a whole, correctly spelt word),
    // prefixes from 4 letters ("sea" must not find "search"), typos from 5.
    const loose = new Set(typed);
    const results = this.mini.search([...weights.keys()].join(' '), {
      ...(opts.visible ? { filter: (r: SearchResult) => opts.visible!(r.id as string) } : {}),
      boostTerm: (term) => weights.get(term) ?? 1,
      prefix: (term) => this.steps.prefix && term.length >= 4 && loose.has(term),
      fuzzy: (term) => (this.steps.fuzzy && term.length >= 5 && loose.has(term) ? 0.2 : false),
    });
    // What the request asks to do: its first word that names an action (a request starts with its verb; "note" after it is a thing).
    const asked = new Set(firstAction(words.map((w) => w.word)));
    return this.fuse(results, words, opts)
      .map(([name, score]): [string, number] => [name, score * this.actionFactor(name, asked) * this.safetyFactor(name)])
      .sort((a, b) => b[1] - a[1])
      .slice(0, opts.limit)
      .map(([name, score]) => this.match(name, score));
  }

  /**
   * A tool whose name does another action than the request asks ("remember
   * a fact" and `delete_observations`) is not what it asks for, however
   * alike the other words are.
   */
  private actionFactor(name: string, asked: ReadonlySet<Action>): number {
    if (!this.steps.actions || asked.size === 0) return 1;
    const does = this.entries.get(name)!.actions;
    if ([...does].some((a) => asked.has(a))) return this.steps.sameAction ? 1 + this.tuning.sameActionBonus : 1;
    if (does.size === 0) return 1;
    if (this.tuning.harmOnly && Math.max(...[...does].map((a) => HARM[a])) <= Math.max(...[...asked].map((a) => HARM[a]))) return 1;
    return 1 - this.tuning.actionConflictPenalty;
  }

  /**
   * Near ties go to the safer tool: a read-only tool's score counts up to
   * `safetyMargin` more than one that may destroy (safety.ts), so it passes
   * one that scored less than that much above it, never one further ahead.
   */
  private safetyFactor(name: string): number {
    return this.steps.safety ? 1 + this.tuning.safetyMargin * safetyOf(this.entries.get(name)!.entry.tool) : 1;
  }

  /** A request's words: each with its term (as the index stores words), its action if it names one, and its weight. */
  private analyse(query: string): Array<{ word: string; term: string; action?: Action; weight: number }> {
    const parts: Array<{ words: string[]; weight: number }> = this.steps.values
      ? requestParts(query).flatMap((p) =>
          'text' in p
            ? [{ words: splitWords(p.text), weight: 1 }]
            : [
                { words: [...p.kind], weight: 1 },
                { words: splitWords(p.value), weight: this.tuning.valueWordWeight },
              ],
        )
      : [{ words: splitWords(query), weight: 1 }];
    return parts.flatMap(({ words, weight }) =>
      weight === 0
        ? []
        : words.flatMap((word) => {
            const term = termOf(word, this.steps);
            if (term === null) return [];
            const action = actionOf(word);
            return [{ word, term, ...(action ? { action } : {}), weight: weight * (action && this.steps.actions ? this.tuning.actionWordWeight : 1) }];
          }),
    );
  }

  /**
   * BM25 and the word-vector score, fused: a convex combination of the two,
   * BM25 divided by the query's best BM25 so that both lie in [0, 1] (the
   * fusion Bruch et al. found better than rank fusion, "An analysis of
   * fusion functions for hybrid retrieval", 2023). Without vectors, BM25 alone.
   */
  private fuse(lexical: SearchResult[], words: ReadonlyArray<{ word: string; weight: number }>, opts: SearchOptions): Array<[string, number]> {
    const semantic = this.semantic?.scores(
      words.filter((w) => !isStopWord(w.word)),
      opts.visible,
    );
    if (!semantic) return lexical.map((r) => [r.id as string, r.score]);
    const w = this.tuning.semanticWeight;
    const best = lexical[0]?.score ?? 1;
    const fused = new Map<string, number>(lexical.map((r) => [r.id as string, ((1 - w) * r.score) / best]));
    for (const [name, score] of semantic) fused.set(name, (fused.get(name) ?? 0) + w * score);
    return [...fused];
  }

  /** Names close to one that does not exist (a typo, a missing prefix), best first. */
  closestNames(name: string, count: number, visible?: (name: string) => boolean): string[] {
    const terms = this.queryTerms(name);
    if (terms.length === 0) return [];
    return this.mini
      .search(terms.join(' '), {
        fields: ['name'],
        fuzzy: 0.34,
        prefix: true,
        ...(visible ? { filter: (r: SearchResult) => visible(r.id as string) } : {}),
      })
      .slice(0, count)
      .map((r) => r.id as string);
  }

  private documentFrequency(term: string): number {
    return this.mini.search(term, { prefix: false, fuzzy: false }).length;
  }

  private queryTerms(query: string): string[] {
    return [...new Set(splitWords(query).flatMap((w) => termOf(w, this.steps) ?? []))];
  }

  private wordsOf(doc: IndexedTool): ToolWords {
    const words = (field: Field) => splitWords(fieldText(doc, field, this.tuning.descriptionWords)).filter((w) => !isStopWord(w));
    return { name: words('name'), title: words('title'), description: words('description'), args: words('args'), backend: words('backend') };
  }

  private createSemantic(): SemanticMatcher | undefined {
    return this.vectors && this.steps.vectors ? new SemanticMatcher(this.vectors, this.tuning.semantic) : undefined;
  }

  private match(name: string, score: number): ToolMatch {
    const { entry } = this.entries.get(name)!;
    return {
      name: entry.name,
      description: entry.tool.description ?? '',
      inputSchema: entry.tool.inputSchema,
      backend: entry.backend,
      score: Math.round(score * 1000) / 1000,
      ...(entry.tool.annotations ? { annotations: entry.tool.annotations } : {}),
    };
  }

  private create(): MiniSearch<IndexedTool> {
    const steps = this.steps;
    return new MiniSearch<IndexedTool>({
      idField: 'name',
      fields: FIELDS.filter((f) => f !== 'summary' || steps.firstSentence),
      extractField: (doc, field) => fieldText(doc, field as Field, this.tuning.descriptionWords),
      tokenize: splitWords,
      processTerm: (word) => termOf(word, steps),
      searchOptions: {
        // Query terms arrive analysed (queryTerms): the index's analysis must not run on them twice.
        tokenize: (text) => text.split(' '),
        processTerm: (term) => term,
        boost: steps.fieldWeights ? this.tuning.fieldWeights : {},
        bm25: this.tuning.bm25,
        combineWith: 'OR',
      },
      autoVacuum: { batchSize: 5000, batchWait: 10, minDirtCount: 50, minDirtFactor: 0.2 },
    });
  }
}

function fieldText(doc: IndexedTool, field: Field, descriptionWords: number): string {
  switch (field) {
    case 'name':
      return doc.name;
    case 'title':
      return doc.tool.title ?? doc.tool.annotations?.title ?? '';
    case 'summary':
      return firstSentence(doc.tool.description ?? '');
    case 'description':
      return firstWords(doc.tool.description ?? '', descriptionWords);
    case 'args':
      return argumentText(doc.tool.inputSchema);
    case 'backend':
      return `${doc.backend} ${doc.group}`;
  }
}

/** Argument names and descriptions, nested objects included (one level of arrays and objects is enough for real schemas). */
function argumentText(schema: unknown, depth = 0): string {
  if (typeof schema !== 'object' || schema === null || depth > 3) return '';
  const s = schema as { properties?: Record<string, unknown>; items?: unknown; description?: unknown };
  const parts: string[] = [];
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    parts.push(name);
    const description = (prop as { description?: unknown } | null)?.description;
    if (typeof description === 'string') parts.push(description);
    parts.push(argumentText(prop, depth + 1));
  }
  if (s.items) parts.push(argumentText(s.items, depth + 1));
  return parts.filter(Boolean).join(' ');
}

function firstSentence(text: string): string {
  return firstWords(text.split(/(?<=[.!?])\s|\n/)[0] ?? '', 40);
}

function firstWords(text: string, count: number): string {
  if (count <= 0) return text;
  const words = text.split(/\s+/);
  return words.length <= count ? text : words.slice(0, count).join(' ');
}

/**
 * What the index holds of a tool, cheaply: its texts, and its input schema by
 * identity. A new route table copies each tool but keeps its schema object
 * until the backend sends a new catalog, so an unchanged tool is recognised
 * without serialising its schema (10,000 of them cost a third of a second).
 */
function signatureOf(e: IndexedTool): string {
  const t = e.tool;
  return [e.backend, e.group, t.name, t.title ?? '', t.annotations?.title ?? '', t.description ?? '', identity(t.inputSchema)].join('\u0000');
}

const identities = new WeakMap<object, number>();
let nextIdentity = 0;

function identity(value: object): number {
  let id = identities.get(value);
  if (id === undefined) identities.set(value, (id = nextIdentity++));
  return id;
}
