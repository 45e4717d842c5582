import { defineConfig } from 'vitest/config';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests spawn real backend processes; two cores cannot run many files at once.
    maxWorkers: 2,
    pool: 'forks',
    reporters: ['default', './test/summary-reporter.ts'],
    // Servers started by tests write session files: keep them out of the user's state directory.
    env: { GATEWAY_STATE_DIR: join(tmpdir(), `mcp-gateway-test-state-${process.pid}`) },
  },
});
