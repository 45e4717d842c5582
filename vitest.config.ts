import { defineConfig } from 'vitest/config';
import { join } from 'node:path';
import { runTempDir } from './test/run-temp-dir.js';

/**
 * Two projects. `unit` (test/unit, folders mirror the source): no build and no
 * child processes, seconds in all. `e2e` (test/e2e): real gateways, backends,
 * CLIs, Redis, browsers and containers, run from dist/ after `npm run build`.
 * `npm test` builds and runs both; fixtures and helpers (test/fixtures,
 * test/helpers) serve both and the bench.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests spawn real backend processes; two cores cannot run many files at once.
    maxWorkers: 2,
    pool: 'forks',
    reporters: ['default', './test/summary-reporter.ts'],
    // Everything the tests put in temporary folders goes in one folder, removed when the run ends (./test/run-temp-dir.ts);
    // servers started by tests write session files: keep them out of the user's state directory.
    globalSetup: ['./test/run-temp-dir.ts'],
    env: { TMPDIR: runTempDir(), GATEWAY_STATE_DIR: join(runTempDir(), 'state') },
    projects: [
      // Unit files share one module registry per worker (no isolation): importing the source once is most of their time.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.{ts,tsx}'], isolate: false } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.{ts,tsx}'] } },
    ],
  },
});
