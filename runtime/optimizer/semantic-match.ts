/**
 * Meaning where the words differ: each word of a request is compared, by
 * its word vector (word-vectors.ts), with every word of a tool's name,
 * title, description and argument names, and counts as much as its closest
 * one ("sum" for "add", "entity" for "person"). A tool's score is the mean
 * over the request's words, in [0, 1]: a soft version of "how many of the
 * request's words does the tool have" (tool-index.ts fuses it with BM25).
 *
 * Cosines of unrelated words are not zero (0.2 to 0.4 in these vectors), so
 * a similarity counts only above a threshold, rescaled to [0, 1] from there.
 * Word vectors place opposites close ("remember" and "forget" 0.86, "add" and
 * "remove" 0.68): two words that name different actions are never similar
 * here, whatever their vectors say (actions.ts).
 *
 * Fast because sparse: a request word is compared with each distinct word of
 * the catalog once (a few thousand), and only the few words above the
 * threshold lead, through a list of the tools that have them, to tools.
 */
import { actionOf } from './actions.js';
import type { WordVectors } from './word-vectors.js';

/** A tool's words by where they come from (analysed as text-analysis.ts splits them, stop words out). */
export type ToolWords = Record<'name' | 'title' | 'description' | 'args' | 'backend', readonly string[]>;

export interface SemanticTuning {
  /** A cosine below this counts as nothing; above it, (cos − threshold) / (1 − threshold). */
  threshold: number;
  /** How much a match in each field counts (the best of a word's matches, so a field weight of 1 is a perfect match). */
  fieldWeights: Record<keyof ToolWords, number>;
}

export const DEFAULT_SEMANTIC_TUNING: SemanticTuning = {
  threshold: 0.45,
  fieldWeights: { name: 1, title: 1, description: 0.8, args: 0.6, backend: 0.6 },
};

/** One word's tools: their numbers and the weight of the field the word is in (the best when in several). */
interface Posting {
  tools: number[];
  weights: number[];
}

export class SemanticMatcher {
  /** Tool name → its number (the index of arrays below); numbers of removed tools are reused. */
  private readonly numberOf = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly free: number[] = [];
  /** Tool number → the catalog words (slots) it has. */
  private readonly toolSlots: Array<readonly number[]> = [];
  /** Vector row → slot: each distinct word of the catalog once. */
  private readonly slotOf = new Map<number, number>();
  private readonly rows: number[] = [];
  /** Each slot's word vector at unit length, one after the other (a cosine is then one dot product in a tight loop). */
  private units = new Float32Array(0);
  /** The action (actions.ts) of each slot's word, or undefined. */
  private readonly actions: Array<string | undefined> = [];
  private readonly postings: Posting[] = [];

  constructor(
    private readonly vectors: WordVectors,
    private readonly tuning: SemanticTuning = DEFAULT_SEMANTIC_TUNING,
  ) {}

  set(name: string, words: ToolWords): void {
    this.delete(name);
    const best = new Map<number, number>();
    for (const field of Object.keys(words) as Array<keyof ToolWords>) {
      const weight = this.tuning.fieldWeights[field];
      for (const word of words[field]) {
        const slot = this.slot(word);
        if (slot >= 0 && (best.get(slot) ?? 0) < weight) best.set(slot, weight);
      }
    }
    const tool = this.free.pop() ?? this.names.length;
    this.numberOf.set(name, tool);
    this.names[tool] = name;
    this.toolSlots[tool] = [...best.keys()];
    for (const [slot, weight] of best) {
      this.postings[slot].tools.push(tool);
      this.postings[slot].weights.push(weight);
    }
  }

  delete(name: string): void {
    const tool = this.numberOf.get(name);
    if (tool === undefined) return;
    for (const slot of this.toolSlots[tool]) {
      const p = this.postings[slot];
      const i = p.tools.indexOf(tool);
      p.tools[i] = p.tools[p.tools.length - 1];
      p.weights[i] = p.weights[p.weights.length - 1];
      p.tools.pop();
      p.weights.pop();
    }
    this.toolSlots[tool] = [];
    this.numberOf.delete(name);
    this.free.push(tool);
  }

  /** Each tool's score for the request's words, each with its weight (only tools above 0, only those `visible` lets through). */
  scores(queryWords: ReadonlyArray<{ word: string; weight: number }>, visible?: (name: string) => boolean): Map<string, number> {
    const d = this.vectors.dimensions;
    const known = [...new Map(queryWords.map((w) => [w.word, w.weight]))]
      .map(([word, weight]) => ({ row: this.vectors.idOf(word), action: actionOf(word), weight, unit: new Float32Array(d) }))
      .filter((q) => q.row >= 0);
    for (const q of known) this.vectors.unitVector(q.row, q.unit, 0);
    const units = this.units;
    const totalWeight = known.reduce((a, q) => a + q.weight, 0);
    const { threshold } = this.tuning;
    const total = new Float64Array(this.names.length);
    const best = new Float64Array(this.names.length);
    const touched: number[] = [];
    for (const q of known) {
      // This word's best match in each tool that has a word close enough.
      best.fill(0);
      for (let slot = 0; slot < this.rows.length; slot++) {
        const other = this.actions[slot];
        if (q.action && other && q.action !== other) continue;
        let cos = 0;
        for (let i = 0, j = slot * d; i < d; i++, j++) cos += q.unit[i] * units[j];
        if (cos <= threshold) continue;
        const sim = (cos - threshold) / (1 - threshold);
        const { tools, weights } = this.postings[slot];
        for (let i = 0; i < tools.length; i++) if (sim * weights[i] > best[tools[i]]) best[tools[i]] = sim * weights[i];
      }
      for (let tool = 0; tool < best.length; tool++) {
        if (best[tool] === 0) continue;
        if (total[tool] === 0) touched.push(tool);
        total[tool] += (q.weight * best[tool]) / totalWeight;
      }
    }
    const out = new Map<string, number>();
    for (const tool of touched) if (!visible || visible(this.names[tool])) out.set(this.names[tool], total[tool]);
    return out;
  }

  private slot(word: string): number {
    const row = this.vectors.idOf(word);
    if (row < 0) return -1;
    let slot = this.slotOf.get(row);
    if (slot === undefined) {
      slot = this.rows.length;
      this.slotOf.set(row, slot);
      this.rows.push(row);
      const d = this.vectors.dimensions;
      if (this.units.length < (slot + 1) * d) {
        const grown = new Float32Array(Math.max(1024, slot * 2) * d);
        grown.set(this.units);
        this.units = grown;
      }
      this.vectors.unitVector(row, this.units, slot * d);
      this.actions.push(actionOf(word));
      this.postings.push({ tools: [], weights: [] });
    }
    return slot;
  }
}
