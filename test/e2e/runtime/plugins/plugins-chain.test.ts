/**
 * The chain itself, against a real gateway and a real backend: execution
 * modes with plugins of one's own that throw, hang, block or do not load;
 * the complete example of docs/plugins.md loaded from a path relative to
 * the config file; hot reload rebuilding the chain (kept, replaced and
 * removed plugins, on_load and on_unload); chain order and counters in
 * GET /manage/v1/plugins and `gateway-client plugins list`; workflow steps
 * and the optimizer's call_tool passing the chain like client calls; what a
 * reload or a shutdown does not wait on.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { managementClient } from '../../../helpers/management-client.js';
import { CLIENT_BIN, clientJson, runBin } from '../../../helpers/cli-run.js';
import { copySkillFixtures } from '../../../helpers/skill-fixtures.js';
import { fixtureCommand, repoRoot } from '../../../fixtures/spawn.js';
import { auditRecords, callText, guardrailBackend, pluginRecords, rpcError, textOf } from '../../../helpers/plugin-harness.js';

const MODULES = {
  'plugins/thrower.mjs': `export const hooks = { tool_pre_invoke() { throw new Error('boom'); } };\n`,
  'plugins/hanger.mjs': `export const hooks = { tool_pre_invoke() { return new Promise(() => {}); } };\n`,
  'plugins/blocker.mjs': `export default { hooks: { tool_pre_invoke(ctx) { ctx.block('not today'); } } };\n`,
  'plugins/misspelt.mjs': `export const hooks = { tool_pre_invok() {} };\n`,
  'plugins/never-loads.mjs': `await new Promise(() => {});\nexport const hooks = {};\n`,
};

/** The complete example of docs/plugins.md, as the page shows it. */
function docsExample(): string {
  const doc = readFileSync(join(repoRoot(), 'docs', 'plugins.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### A complete example'));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('no js example in docs/plugins.md');
  return code;
}

describe('execution modes', () => {
  let h: Harness;
  let client: Client;
  const own = (name: string, file: string, extra: Record<string, unknown> = {}) => ({ name, module: `./plugins/${file}.mjs`, ...extra });

  beforeAll(async () => {
    h = await startGateway(
      {
        backends: { f: guardrailBackend() },
        plugins: [
          own('throw-enforce', 'thrower', { execution_mode: 'enforce', conditions: { tools: ['f_echo'] } }),
          own('hang-enforce', 'hanger', { execution_mode: 'enforce', timeout_s: 0.3, conditions: { tools: ['f_add'] } }),
          own('throw-ignore', 'thrower', { conditions: { tools: ['f_counter_write'] } }),
          own('hang-ignore', 'hanger', { timeout_s: 0.3, conditions: { tools: ['f_counter_write'] } }),
          own('block-ignore', 'blocker', { conditions: { tools: ['f_whoami'] } }),
          own('throw-permissive', 'thrower', { execution_mode: 'permissive', conditions: { tools: ['f_counter_read'] } }),
          own('block-permissive', 'blocker', { execution_mode: 'permissive', conditions: { tools: ['f_counter_read'] } }),
          own('block-disabled', 'blocker', { execution_mode: 'disabled' }),
          own('block-off', 'blocker', { enabled: false }),
          own('misspelt-enforce', 'misspelt', { execution_mode: 'enforce', conditions: { tools: ['f_counter_error'] } }),
          own('misspelt-ignore', 'misspelt'),
          own('never-loads', 'never-loads', { timeout_s: 0.3 }),
        ],
      },
      { files: MODULES },
    );
    client = await h.connect();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('enforce: a plugin that throws or hangs fails the call', async () => {
    const thrown = await rpcError(client.callTool({ name: 'f_echo', arguments: { text: 'x' } }));
    expect(thrown.message).toContain('Plugin throw-enforce failed: boom');
    expect(thrown.data).toMatchObject({ error: 'plugin_failed', plugin: 'throw-enforce' });
    const hung = await rpcError(client.callTool({ name: 'f_add', arguments: { a: 1, b: 2 } }));
    expect(hung.message).toContain('Plugin hang-enforce failed: the hook timed out after 0.3 s');
  });

  it('enforce: a plugin that did not load fails the calls it would see', async () => {
    const err = await rpcError(client.callTool({ name: 'f_counter_error', arguments: {} }));
    expect(err.message).toContain('Plugin misspelt-enforce failed: it did not load: unknown hook `tool_pre_invok`');
  });

  it('enforce_ignore_error: failures are logged and counted, the call goes on; a deliberate block stops it', async () => {
    expect(await callText(client, 'f_counter_write')).toBe('#1');
    const record = (await auditRecords(h)).find((r) => r.target.capability_name === 'f_counter_write');
    expect(record?.outcome.status).toBe('success');
    expect(record?.metadata.plugins).toEqual([
      expect.objectContaining({ plugin: 'throw-ignore', action: 'error', reason: 'threw', error_type: 'Error' }),
      expect.objectContaining({ plugin: 'hang-ignore', action: 'error', reason: 'timeout' }),
    ]);
    expect(h.logs.some((l) => l.includes('plugin throw-ignore failed: boom'))).toBe(true);
    const blocked = await rpcError(client.callTool({ name: 'f_whoami', arguments: {} }));
    expect(blocked.message).toContain('Blocked by plugin block-ignore: not today');
    expect(blocked.data).toMatchObject({ error: 'plugin_blocked', plugin: 'block-ignore' });
  });

  it('permissive: nothing it does stops the call; its block is logged and audited as not enforced', async () => {
    expect(await callText(client, 'f_counter_read')).toBe('#1');
    const record = (await auditRecords(h)).find((r) => r.target.capability_name === 'f_counter_read');
    expect(record?.metadata.plugins).toEqual([
      expect.objectContaining({ plugin: 'throw-permissive', action: 'error', reason: 'threw' }),
      expect.objectContaining({ plugin: 'block-permissive', action: 'block', reason: 'plugin_blocked', enforced: false }),
    ]);
    expect(h.logs.some((l) => l.includes('plugin block-permissive would block this call (permissive)'))).toBe(true);
  });

  it('disabled, enabled: false and a module that did not load or never finished loading (not enforced) are skipped', async () => {
    expect(await callText(client, 'f_attempts', { key: 'none' })).toBe('0');
    const records = await pluginRecords(h);
    const byName = Object.fromEntries(records.map((p) => [p.name, p]));
    expect(byName['block-disabled']).toMatchObject({ enabled: true, execution_mode: 'disabled', counters: { invocations: 0 } });
    expect(byName['block-off']).toMatchObject({ enabled: false, counters: { invocations: 0 } });
    expect(byName['misspelt-ignore'].error).toBe(
      'unknown hook `tool_pre_invok` (hooks: tool_pre_invoke, tool_post_invoke, prompt_pre_fetch, prompt_post_fetch, resource_pre_fetch, resource_post_fetch, on_load, on_unload)',
    );
    expect(byName['misspelt-ignore'].counters.invocations).toBe(0);
    // A module whose import never finishes did not hold the start: its worker had nothing left to wait for.
    expect(byName['never-loads'].error).toBe('its import never finished: a top-level await that never settles (exit code 13)');
    expect(byName['throw-ignore'].counters).toMatchObject({ invocations: 1, errors: 1 });
    expect(byName['hang-ignore'].counters).toMatchObject({ invocations: 1, errors: 1 });
    expect(byName['block-ignore'].counters).toMatchObject({ invocations: 1, blocks: 1 });
    expect(byName['block-permissive'].counters).toMatchObject({ invocations: 1, blocks: 1 });
  });
});

describe('a plugin of your own: the example of docs/plugins.md, and hot reload', () => {
  let h: Harness;
  let client: Client;
  const journalDir = mkdtempSync(join(tmpdir(), 'gw-journal-'));
  const journal = join(journalDir, 'my-guard.log');
  const journalLines = () => readFileSync(journal, 'utf8').trim().split('\n');
  const guard = (settings: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
    name: 'my-guard',
    module: './plugins/my-guard.mjs',
    execution_mode: 'enforce',
    settings: { journal, deny: ['f_counter_write'], maintenance: 'f_add', ...settings },
    ...extra,
  });
  const config = (plugins: unknown[]) => ({
    server: { host: '127.0.0.1', port: 0 },
    feature_flags: { hot_reload: true },
    backends: { f: guardrailBackend() },
    audit: { file: join(h.dir, 'audit.jsonl') },
    containers: { enabled: false },
    plugins,
  });
  const reload = async (plugins: unknown[]) => {
    h.writeConfig(config(plugins));
    const res = await managementClient(h.url).post('/reload');
    expect(res.body).toMatchObject({ reloaded: true });
  };

  beforeAll(async () => {
    h = await startGateway(
      { feature_flags: { hot_reload: true }, backends: { f: guardrailBackend() }, plugins: [guard()] },
      { files: { 'plugins/my-guard.mjs': docsExample() } },
    );
    client = await h.connect();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is loaded from a path relative to the config file: on_load ran with its settings', async () => {
    expect(journalLines()).toEqual(['loaded']);
    const [record] = await pluginRecords(h);
    expect(record).toMatchObject({ name: 'my-guard', module: join(h.dir, 'plugins', 'my-guard.mjs'), error: null, execution_mode: 'enforce' });
  });

  it('changes arguments, adds to results, answers on its own, and blocks', async () => {
    const echoed = await client.callTool({ name: 'f_echo', arguments: { text: '  hi  ' } });
    expect(echoed.content).toEqual([
      { type: 'text', text: 'hi' },
      { type: 'text', text: 'checked by my-guard for f' },
    ]);
    const maintenance = await client.callTool({ name: 'f_add', arguments: { a: 1, b: 2 } });
    expect(maintenance).toMatchObject({ isError: true, content: [{ type: 'text', text: 'f_add is down for maintenance' }] });
    const blocked = await rpcError(client.callTool({ name: 'f_counter_write', arguments: {} }));
    expect(blocked.message).toContain('Blocked by plugin my-guard: f_counter_write is switched off here');
    expect(journalLines()).toEqual(['loaded', 'refused f_counter_write for ip:127.0.0.1']);
    const echo = (await auditRecords(h)).find((r) => r.target.capability_name === 'f_echo');
    expect(echo?.metadata.plugins).toEqual([{ plugin: 'my-guard', action: 'modify', where: 'result' }]);
  });

  it('a reload that keeps it (only its priority changes) keeps the instance and its counters', async () => {
    const before = (await pluginRecords(h))[0].counters;
    await reload([guard({}, { priority: 5 })]);
    const [after] = await pluginRecords(h);
    expect(after).toMatchObject({ priority: 5, counters: before });
    expect(journalLines()).toHaveLength(2);
  });

  it('a reload that changes its settings loads a new instance and unloads the old; a new plugin joins the chain', async () => {
    await reload([guard({ deny: [] }), { name: 'output_length_guard', settings: { max_chars: 5 } }]);
    expect(journalLines().slice(2)).toEqual(['loaded', 'unloaded']);
    const records = await pluginRecords(h);
    expect(records.map((p) => p.name)).toEqual(['my-guard', 'output_length_guard']);
    expect(records[0].counters.invocations).toBe(0);
    // No longer denied. The length guard comes after my-guard, so it is inside it: it cuts the
    // backend's text on the way out, and my-guard's note is added after that.
    const result = await client.callTool({ name: 'f_counter_write', arguments: { label: 'abcdefgh' } });
    expect(result.content).toEqual([
      { type: 'text', text: 'abcd…' },
      { type: 'text', text: 'checked by my-guard for f' },
    ]);
  });

  it('a reload that removes every plugin unloads them: the call path has no chain', async () => {
    await reload([]);
    expect(journalLines().at(-1)).toBe('unloaded');
    expect(await pluginRecords(h)).toEqual([]);
    expect(textOf(await client.callTool({ name: 'f_echo', arguments: { text: '  spaced  ' } }))).toBe('  spaced  ');
  });

  it('a graceful shutdown unloads it', async () => {
    await reload([guard()]);
    expect(journalLines().at(-1)).toBe('loaded');
    await h.close();
    expect(journalLines().at(-1)).toBe('unloaded');
  });
});

describe('what a reload or a shutdown does not wait on', () => {
  const sticky = `export const hooks = {};\nexport function on_unload() { return new Promise(() => {}); }\n`;
  const entry = { name: 'sticky', module: './plugins/sticky.mjs', timeout_s: 0.3 };

  it('holds neither a reload that removes it nor a graceful shutdown (each waits timeout_s for it)', async () => {
    const h = await startGateway(
      { feature_flags: { hot_reload: true }, backends: { f: guardrailBackend() }, plugins: [entry] },
      { files: { 'plugins/sticky.mjs': sticky } },
    );
    const config = {
      server: { host: '127.0.0.1', port: 0 },
      feature_flags: { hot_reload: true },
      backends: { f: guardrailBackend() },
      containers: { enabled: false },
    };
    h.writeConfig({ ...config, plugins: [] });
    expect((await managementClient(h.url).post('/reload')).body).toMatchObject({ reloaded: true });
    expect(h.logs.filter((l) => l.includes('on_unload timed out after 0.3 s'))).toHaveLength(1);
    h.writeConfig({ ...config, plugins: [entry] });
    expect((await managementClient(h.url).post('/reload')).body).toMatchObject({ reloaded: true });
    await h.close();
    expect(h.logs.filter((l) => l.includes('on_unload timed out after 0.3 s'))).toHaveLength(2);
    expect(h.logs.some((l) => l.includes('gateway stopped'))).toBe(true);
  });

  it('a part of the gateway that fails to follow a reload: the reload answers, and the failure is logged', async () => {
    const h = await startGateway({ feature_flags: { hot_reload: true }, backends: { f: guardrailBackend() } });
    try {
      h.gateway.controller.onConfigApplied(() => Promise.reject(new Error('cannot follow')));
      expect((await managementClient(h.url).post('/reload')).body).toMatchObject({ reloaded: true });
      const logged = h.logs.find((l) => l.includes('a part of the gateway did not follow the reloaded config'));
      expect(logged).toContain('cannot follow');
    } finally {
      await h.close();
    }
  });
});

describe('chain order, GET /plugins and gateway-client plugins list', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGateway({
      backends: { f: guardrailBackend() },
      plugins: [
        { name: 'markdown_cleaner', priority: 200 },
        { name: 'rate_limiter', settings: { max_requests: 1000 } },
        { name: 'pii_filter', priority: 10, execution_mode: 'permissive' },
        { name: 'secrets_detection', enabled: false },
      ],
    });
    const client = await h.connect();
    await callText(client, 'f_echo', { text: 'write to jane.doe@example.com' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('lists the plugins in chain order (priority, then config order) with their counters', async () => {
    const records = await pluginRecords(h);
    expect(records.map((p) => [p.name, p.priority, p.enabled, p.execution_mode])).toEqual([
      ['pii_filter', 10, true, 'permissive'],
      ['rate_limiter', 100, true, 'enforce_ignore_error'],
      ['secrets_detection', 100, false, 'enforce_ignore_error'],
      ['markdown_cleaner', 200, true, 'enforce_ignore_error'],
    ]);
    expect(records[0].counters).toEqual({ invocations: 1, blocks: 0, redactions: 1, cache_hits: 0, retries: 0, errors: 0 });
    expect(records[1].counters.invocations).toBe(1);
  });

  it('gateway-client plugins list prints the same, as a table and as JSON', async () => {
    const json = (await clientJson(h.url, ['plugins', 'list'])) as { plugins: Array<{ name: string }> };
    expect(json.plugins).toEqual(await pluginRecords(h));
    const table = await runBin(CLIENT_BIN, ['-s', h.url, '-o', 'table', 'plugins', 'list'], { env: { NO_COLOR: '1' } });
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+ENABLED\s+MODE\s+PRIORITY\s+CALLS\s+BLOCKS\s+REDACTIONS\s+CACHE HITS\s+RETRIES\s+ERRORS/);
    expect(lines[1]).toMatch(/^pii_filter\s+yes\s+permissive\s+10\s+1\s+0\s+1\s+0\s+0\s+0/);
    expect(lines[3]).toMatch(/^secrets_detection\s+no\s/);
  });
});

describe('workflow steps pass the chain like client calls', () => {
  let h: Harness;
  beforeAll(async () => {
    const fx = fixtureCommand(['--name', 'fx']);
    h = await startGateway({
      backends: { fx: { type: 'stdio', command: fx.command, args: fx.args } },
      skills: { directory: copySkillFixtures() },
      plugins: [{ name: 'secrets_detection', settings: { where: 'arguments', action: 'block' }, conditions: { tools: ['fx_echo'] } }],
    });
    expect((await managementClient(h.url).post('/skills/legacy-echo/enable')).status).toBe(200);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a step whose arguments hold a secret is blocked, and the workflow fails naming it', async () => {
    const client = await h.connect();
    const ok = await client.callTool({ name: 'legacy-echo_shout', arguments: { text: 'hello' } });
    expect(ok.isError).toBeFalsy();
    const key = ['AKIA', 'IOSFODNN7EXAMPLE'].join('');
    const result = await client.callTool({ name: 'legacy-echo_shout', arguments: { text: `key ${key}` } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('Blocked by plugin secrets_detection: the arguments hold secrets: aws_access_key');
    expect(textOf(result)).not.toContain(key);
    const step = (await auditRecords(h)).find((r) => (r.metadata as Record<string, unknown>).workflow === 'shout' && r.outcome.status === 'error');
    expect(step?.metadata).toMatchObject({ step: 'say', plugins: [{ plugin: 'secrets_detection', action: 'block', where: 'arguments' }] });
  });
});

describe("the optimizer's call_tool passes the chain as a call of the tool it names", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGateway({
      feature_flags: { optimizer: true },
      backends: { f: guardrailBackend() },
      plugins: [{ name: 'secrets_detection', conditions: { tools: ['f_echo'] } }],
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a secret in the arguments of call_tool(f_echo) is redacted before the backend, and audited under f_echo', async () => {
    const client = await h.connect();
    const key = ['AKIA', 'IOSFODNN7EXAMPLE'].join('');
    const result = await client.callTool({ name: 'call_tool', arguments: { name: 'f_echo', arguments: { text: `key ${key}` } } });
    expect(textOf(result)).toBe('key [REDACTED:aws_access_key]');
    const echo = (await auditRecords(h)).find((r) => r.target.capability_name === 'f_echo');
    expect(echo?.metadata.plugins).toEqual([{ plugin: 'secrets_detection', action: 'redact', where: 'arguments', kinds: { aws_access_key: 1 } }]);
    const [record] = await pluginRecords(h);
    expect(record.counters).toMatchObject({ invocations: 1, redactions: 1 });
  });
});
