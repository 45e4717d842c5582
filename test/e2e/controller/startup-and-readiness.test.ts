/**
 * Issue 10 §5 and issue 11's done-when, end to end:
 * - a port in use: one line on stderr, exit 1, no stack trace, no backend started;
 * - a tool whose backend is not Ready answers which backend and its phase,
 *   distinct from an unknown tool;
 * - fifty concurrent POST /reconnect/x start x once, however they are spread.
 */
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { GATEWAY_BIN, runBin } from '../../helpers/cli-run.js';
import { startGateway } from '../../helpers/gateway-harness.js';
import { fixtureCommand } from '../../fixtures/spawn.js';
import { waitFor } from '../../helpers/wait.js';

describe('start-up and readiness', () => {
  // With hot reload the config and skills watchers run too: a failed listen must release them (it hung, issue 28).
  it.each([false, true])('a port in use: one line on stderr, exit 1, and no backend started (hot_reload: %s)', async (hotReload) => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const dir = mkdtempSync(join(tmpdir(), 'gw-port-'));
    const marker = join(dir, 'backend-started');
    const config = join(dir, 'gateway.yaml');
    writeFileSync(
      config,
      stringify({
        audit: { enabled: false },
        containers: { enabled: false },
        feature_flags: { hot_reload: hotReload },
        skills: { directory: join(dir, 'skills') },
        // Writes the marker the moment it starts: it must never run.
        backends: {
          probe: {
            type: 'stdio',
            command: process.execPath,
            args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'); setInterval(() => {}, 1000)`],
          },
        },
      }),
    );
    try {
      // For a person (JSON off a terminal is tested in test/e2e/cli/cli-gateway.test.ts).
      const r = await runBin(GATEWAY_BIN, ['server', '--config', config, '--port', String(port), '--log-format', 'pretty'], {
        env: { GATEWAY_STATE_DIR: join(dir, 'state') },
      });
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([`cannot listen on 127.0.0.1:${port}: address in use`]);
      expect(r.stdout).not.toMatch(/listening/i);
      expect(existsSync(marker)).toBe(false);
    } finally {
      blocker.close();
    }
  });

  it('a tool of a backend that is not Ready names the backend and its phase; an unknown tool is something else', async () => {
    const f = fixtureCommand(['--name', 'mem']);
    const h = await startGateway({
      // A long backoff keeps it Failed once it is gone.
      controller: { backoff_initial_ms: 60_000, backoff_max_ms: 60_000 },
      backends: { mem: { type: 'stdio', command: f.command, args: f.args } },
    });
    try {
      const client = await h.connect();
      await client.callTool({ name: 'mem_echo', arguments: { text: 'up' } });
      process.kill(h.gateway.controller.connection('mem')!.pid!, 'SIGKILL');
      await waitFor(() => h.gateway.controller.backendRecord('mem')?.phase === 'Failed', 'mem to be Failed');
      const down = await client.callTool({ name: 'mem_echo', arguments: { text: 'x' } }).catch((e: unknown) => e);
      expect(down).toBeInstanceOf(McpError);
      expect((down as McpError).message).toContain('backend "mem" is Failed');
      expect((down as McpError).data).toMatchObject({ error: 'backend_unavailable', backend: 'mem', phase: 'Failed' });
      const unknown = await client.callTool({ name: 'mem_nothing', arguments: {} }).catch((e: unknown) => e);
      expect((unknown as McpError).message).toMatch(/Unknown tool: mem_nothing/);
      expect((unknown as McpError).code).not.toBe((down as McpError).code);
    } finally {
      await h.close();
    }
  });

  it('fifty concurrent POST /reconnect/x start x once: requests that come while the reconnect is queued or running join it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-reconnect-'));
    const starts = join(dir, 'starts');
    const gate = join(dir, 'gate');
    writeFileSync(gate, '');
    const f = fixtureCommand(['--name', 'x']);
    // Each start of the backend process is a line in `starts`; a process starts serving MCP only once `gate` exists.
    const wrapper = `
      const fs = require('fs');
      fs.appendFileSync(${JSON.stringify(starts)}, process.pid + '\\n');
      let started = false;
      const start = () => {
        if (started || !fs.existsSync(${JSON.stringify(gate)})) return;
        started = true;
        watcher.close();
        process.argv = [process.argv[0], ...${JSON.stringify(f.args)}];
        import(require('url').pathToFileURL(${JSON.stringify(f.args[0])}).href);
      };
      const watcher = fs.watch(${JSON.stringify(dir)}, start);
      start();`;
    const h = await startGateway({ backends: { x: { type: 'stdio', command: f.command, args: ['-e', wrapper] } } });
    const startCount = () => readFileSync(starts, 'utf8').split('\n').filter(Boolean).length;
    try {
      await waitFor(() => h.gateway.controller.backendRecord('x')?.phase === 'Ready', 'x to be Ready');
      expect(startCount()).toBe(1);
      rmSync(gate);
      const mark = Number(h.gateway.events.list().at(-1)!.id);
      const requested = () => h.gateway.events.list().filter((e) => Number(e.id) > mark && e.backend === 'x' && e.stage === 'reconnect').length;
      const answers = Promise.all(
        Array.from({ length: 50 }, () =>
          fetch(`${h.url}/manage/v1/reconnect/x`, { method: 'POST' }).then(async (r) => ({ status: r.status, body: await r.json() })),
        ),
      );
      // Every request has arrived while the new connection waits for the gate: all of them must join that one reconnect.
      await waitFor(() => requested() === 50, 'all fifty requests to arrive', 60_000);
      writeFileSync(gate, '');
      expect(await answers).toEqual(Array.from({ length: 50 }, () => ({ status: 200, body: { name: 'x', reconnected: true, error: null } })));
      expect(startCount()).toBe(2);
      const connects = h.gateway.events.list().filter((e) => Number(e.id) > mark && e.backend === 'x' && e.stage === 'connecting');
      expect(connects).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});
