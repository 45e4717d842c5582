/**
 * Preloaded into a measured process (`node --expose-gc --import gc-on-signal.js`):
 * SIGUSR2 runs a full garbage collection and prints the memory still in use
 * (`BENCH_MEMORY {...}` on stderr), so that a reading says what is still
 * referenced rather than what V8 has not collected (or returned to the OS) yet.
 */
process.on('SIGUSR2', () => {
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  process.stderr.write(`BENCH_MEMORY ${JSON.stringify({ rss, heapUsed, external, arrayBuffers })}\n`);
});
