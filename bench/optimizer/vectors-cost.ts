/**
 * What the word vectors cost a gateway with the optimizer on: the time to
 * read them (the first index build waits for it; start-up itself does not)
 * and the memory they hold, measured in a fresh process (`--expose-gc`, the
 * reading after a full collection) so that nothing else is counted.
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { loadWordVectors, wordVectorsPath } from '../../runtime/optimizer/word-vectors.js';

export interface VectorsCost {
  source: string;
  words: number;
  file_mb: number;
  load_ms: number;
  rss_mb: number;
  heap_mb: number;
}

export function vectorsCost(): VectorsCost | undefined {
  const path = wordVectorsPath();
  if (!path) return undefined;
  const out = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child'], { encoding: 'utf8' });
  return { ...(JSON.parse(out) as Omit<VectorsCost, 'file_mb'>), file_mb: statSync(path).size / 1e6 };
}

async function child(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  const before = process.memoryUsage();
  const t0 = performance.now();
  const vectors = (await loadWordVectors())!;
  vectors.similarity(vectors.idOf('add'), vectors.idOf('sum'));
  const load_ms = performance.now() - t0;
  gc();
  const after = process.memoryUsage();
  const mb = (x: number) => x / 1e6;
  process.stdout.write(
    JSON.stringify({ source: vectors.source, words: vectors.size, load_ms, rss_mb: mb(after.rss - before.rss), heap_mb: mb(after.heapUsed - before.heapUsed) }),
  );
}

if (process.argv.includes('--child')) await child();
