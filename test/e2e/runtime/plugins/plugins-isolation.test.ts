/**
 * A plugin of your own cannot freeze the gateway (issue 31): its module runs
 * in a worker thread of its own. Against the real command line (a frozen
 * gateway fails these tests instead of freezing the test run): a module
 * whose top level loops forever does not hold the start; a hook that loops
 * forever costs its call timeout_s (then the execution mode decides), the
 * gateway answers other calls and /health meanwhile, an event says the
 * worker was ended, and the next call works in a fresh worker.
 */
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AuditRecord } from '../../../../schemas/audit-record.js';
import { startGatewayCli, type GatewayProcess } from '../../../helpers/gateway-cli.js';
import { managementClient } from '../../../helpers/management-client.js';
import { waitFor } from '../../../helpers/wait.js';
import { callText, guardrailBackend, rpcError, type PluginRecord } from '../../../helpers/plugin-harness.js';

/** Notes each load and each spin in its journal, then spins for good when an argument says `spin`. */
const SPINNER = `import { appendFileSync } from 'node:fs';
export function on_load({ journal, label }) {
  appendFileSync(journal, label + ' loaded\\n');
}
export const hooks = {
  tool_pre_invoke(ctx) {
    if (!JSON.stringify(ctx.arguments).includes('spin')) return;
    appendFileSync(ctx.settings.journal, ctx.settings.label + ' spinning\\n');
    for (;;) {}
  },
};
`;
const TOP_LEVEL_LOOP = `for (;;) {}\nexport const hooks = {};\n`;

describe('a plugin of your own cannot freeze the gateway', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-isolation-'));
  const journal = join(dir, 'journal.log');
  const journalLines = (): string[] => {
    try {
      return readFileSync(journal, 'utf8').trim().split('\n');
    } catch {
      return [];
    }
  };
  let gw: GatewayProcess;
  let client: Client;
  const api = () => managementClient(gw.url);

  beforeAll(async () => {
    mkdirSync(join(dir, 'plugins'));
    writeFileSync(join(dir, 'plugins', 'spinner.mjs'), SPINNER);
    writeFileSync(join(dir, 'plugins', 'top-level-loop.mjs'), TOP_LEVEL_LOOP);
    const spinner = (label: string, tools: string[], extra: Record<string, unknown> = {}) => ({
      name: label,
      module: './plugins/spinner.mjs',
      timeout_s: 2,
      conditions: { tools },
      settings: { journal, label },
      ...extra,
    });
    const config = {
      server: { host: '127.0.0.1', port: 0 },
      containers: { enabled: false },
      audit: { file: join(dir, 'audit.jsonl') },
      backends: { f: guardrailBackend() },
      plugins: [
        { name: 'top-level-loop', module: './plugins/top-level-loop.mjs', timeout_s: 1 },
        spinner('spin-enforce', ['f_echo'], { execution_mode: 'enforce' }),
        spinner('spin-ignore', ['f_counter_write']),
      ],
    };
    writeFileSync(join(dir, 'config.yaml'), stringify(config));
    // Without the worker, this start never prints its banner (the import loops in the gateway's own thread).
    gw = await startGatewayCli({ args: ['--config', join(dir, 'config.yaml'), '--log-format', 'json'], cwd: dir, timeoutMs: 45_000 });
    client = new Client({ name: 'isolation-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await gw?.stop();
  });

  it('a module whose top level never ends: the start goes on without it, and says why', async () => {
    const res = await api().get('/plugins');
    const byName = Object.fromEntries((res.body as { plugins: PluginRecord[] }).plugins.map((p) => [p.name, p]));
    expect(byName['top-level-loop'].error).toBe('loading (the import and on_load) timed out after 1 s');
    expect(byName['spin-enforce'].error).toBeNull();
    const said = gw.stdout() + gw.stderr();
    expect(said).toContain('plugin top-level-loop did not load: loading (the import and on_load) timed out after 1 s (left out of the chain)');
  });

  it('a hook that loops forever (enforce): the gateway answers meanwhile, the call fails after timeout_s, the next call works', async () => {
    const spinning = rpcError(client.callTool({ name: 'f_echo', arguments: { text: 'spin' } }));
    await waitFor(() => journalLines().includes('spin-enforce spinning'), 'the hook to spin');
    // The hook is looping now; the gateway is not.
    expect((await api().get('/health')).status).toBe(200);
    expect(await callText(client, 'f_add', { a: 1, b: 2 })).toBe('3');
    const err = await spinning;
    expect(err.message).toContain('Plugin spin-enforce failed: the hook timed out after 2 s');
    expect(err.data).toMatchObject({ error: 'plugin_failed', plugin: 'spin-enforce' });
    const event = await waitFor(async () => {
      const events = (await api().get('/events?severity=warning')).body as { events: Array<Record<string, unknown>> };
      return events.events.find((e) => e.stage === 'plugin_timed_out');
    }, 'the plugin_timed_out event');
    expect(event).toMatchObject({
      backend: 'f',
      severity: 'warning',
      details: { plugin: 'spin-enforce', hook: 'tool_pre_invoke', name: 'f_echo', timeout_s: 2, calls_ended: 1 },
    });
    // A fresh worker (on_load ran again) answers the next call.
    expect(await callText(client, 'f_echo', { text: 'hello' })).toBe('hello');
    expect(journalLines().filter((l) => l === 'spin-enforce loaded')).toHaveLength(2);
  });

  it('a hook that loops forever (enforce_ignore_error): the call goes on after timeout_s as if the plugin were not there', async () => {
    expect(await callText(client, 'f_counter_write', { label: 'spin' })).toBe('spin#1');
    expect(await callText(client, 'f_counter_write', { label: 'again' })).toBe('again#2');
    const records = await waitFor(() => {
      const lines = readFileSync(join(dir, 'audit.jsonl'), 'utf8').split('\n').filter(Boolean);
      const found = lines.map((l) => JSON.parse(l) as AuditRecord).filter((r) => r.target.capability_name === 'f_counter_write');
      return found.length === 2 ? found : undefined;
    }, 'two audit records of f_counter_write');
    expect(records[0].outcome.status).toBe('success');
    expect(records[0].metadata.plugins).toEqual([{ plugin: 'spin-ignore', action: 'error', reason: 'timeout', error_type: 'HookTimeout' }]);
    expect(records[1].metadata.plugins).toBeUndefined();
    const [counters] = ((await api().get('/plugins')).body as { plugins: PluginRecord[] }).plugins.filter((p) => p.name === 'spin-ignore');
    expect(counters.counters).toMatchObject({ invocations: 2, errors: 1 });
  });
});
