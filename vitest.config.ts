import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests spawn real backend processes; two cores cannot run many files at once.
    maxWorkers: 2,
    pool: 'forks',
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
