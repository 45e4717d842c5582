import { defineConfig } from 'vitest/config';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
    // Servers started by tests write session files: keep them out of the user's state directory.
    env: { GATEWAY_STATE_DIR: join(tmpdir(), `mcp-gateway-test-state-${process.pid}`) },
    projects: [
      // Unit files share one module registry per worker (no isolation): importing the source once is most of their time.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.{ts,tsx}'], isolate: false } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.{ts,tsx}'] } },
    ],
  },
});
