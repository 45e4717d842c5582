/**
 * A plugin of your own in its worker thread, through a real chain (no
 * gateway): what crosses to the worker and back is plain data, a client's
 * cancellation reaches `ctx.signal`, a worker that exits under a hook fails
 * only that hook (`worker_ended`) and is replaced for the next call, and an
 * answer that cannot be cloned is a failure of the hook.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../../controller/config/config-loader.js';
import { silentLogger } from '../../../../runtime/observability/logging/logger.js';
import { PluginSet } from '../../../../runtime/plugins/plugin-set.js';
import type { PluginCall } from '../../../../runtime/plugins/plugin.js';
import type { OperationContext } from '../../../../runtime/routing/operation.js';
import type { JsonObject } from '../../../../runtime/routing/caller.js';

const dir = mkdtempSync(join(tmpdir(), 'own-plugin-unit-'));
let sets: PluginSet[] = [];

async function chainOf(source: string, entry: Record<string, unknown> = {}) {
  const path = join(dir, `m${sets.length}.mjs`);
  writeFileSync(path, source);
  const set = new PluginSet({ log: silentLogger(), events: () => undefined });
  sets.push(set);
  await set.apply(parseConfigText(JSON.stringify({ plugins: [{ name: 'mine', module: path, ...entry }] })).plugins);
  const record = set.list()[0];
  expect(record.error).toBeNull();
  return { chain: set.chain!, counters: () => set.list()[0].counters };
}

function run(chain: NonNullable<PluginSet['chain']>, args: JsonObject = {}, signal?: AbortSignal) {
  const op: OperationContext = { method: 'call_tool', capability: 'b_t', sessionId: 's', transport: 'streamable-http' };
  const call: PluginCall = { method: 'tools/call', name: 'b_t', backend: 'b', originalName: 't', arguments: args, caller: op, signal };
  const seen: JsonObject[] = [];
  const forward = (a: JsonObject) => (seen.push(a), Promise.resolve({ content: [{ type: 'text', text: 'from the backend' }] }));
  return { op, seen, result: chain.run(op, call, forward) };
}

afterEach(async () => {
  await Promise.all(sets.map((s) => s.close()));
  sets = [];
});

describe('a plugin of your own in its worker', () => {
  it('changes the arguments in place or by returning them; the caller’s object is never touched', async () => {
    const { chain } = await chainOf(`export const hooks = { tool_pre_invoke(ctx) { ctx.arguments.n += 1; ctx.arguments.who = ctx.identity; } };`);
    const args = { n: 1 };
    const { seen, result } = run(chain, args);
    await result;
    expect(seen).toEqual([{ n: 2, who: 'session:s' }]);
    expect(args).toEqual({ n: 1 });
  });

  it('a post hook must return what it changes: a change in place stays in the worker', async () => {
    const inPlace = await chainOf(`export const hooks = { tool_post_invoke(ctx, result) { result.content[0].text = 'changed'; } };`);
    expect(await run(inPlace.chain).result).toEqual({ content: [{ type: 'text', text: 'from the backend' }] });
    const returned = await chainOf(`export const hooks = { tool_post_invoke(ctx, result) { result.content[0].text = 'changed'; return result; } };`);
    expect(await run(returned.chain).result).toEqual({ content: [{ type: 'text', text: 'changed' }] });
    const replaced = await chainOf(`export const hooks = { tool_post_invoke(ctx, result) { return { ...result, extra: 1 }; } };`);
    const { op, result } = run(replaced.chain);
    expect(await result).toEqual({ content: [{ type: 'text', text: 'from the backend' }], extra: 1 });
    expect(op.plugins).toEqual([{ plugin: 'mine', action: 'modify', where: 'result' }]);
  });

  it("a client's cancellation aborts ctx.signal in the worker", async () => {
    const { chain } = await chainOf(
      `export const hooks = { tool_pre_invoke(ctx) { return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve({ result: { content: [], note: 'saw the cancel' } }))); } };`,
    );
    const controller = new AbortController();
    const { result } = run(chain, {}, controller.signal);
    controller.abort();
    expect(await result).toEqual({ content: [], note: 'saw the cancel' });
  });

  it('a worker that exits under a hook fails that call (worker_ended, as the mode says) and is replaced for the next', async () => {
    const { chain, counters } = await chainOf(
      `let calls = 0;\nexport const hooks = { tool_pre_invoke(ctx) { calls += 1; if (ctx.arguments.exit) process.exit(3); ctx.arguments.calls = calls; } };`,
    );
    const first = run(chain, { exit: true });
    expect(await first.result).toEqual({ content: [{ type: 'text', text: 'from the backend' }] });
    expect(first.op.plugins).toEqual([{ plugin: 'mine', action: 'error', reason: 'worker_ended', error_type: 'PluginWorkerEndedError' }]);
    const next = run(chain, {});
    await next.result;
    // A fresh worker: its module's state starts over.
    expect(next.seen).toEqual([{ calls: 1 }]);
    expect(counters()).toMatchObject({ invocations: 2, errors: 1 });
  });

  it('an answer that cannot be cloned is a failure of the hook; under enforce it fails the call', async () => {
    const { chain } = await chainOf(`export const hooks = { tool_pre_invoke() { return { result: { content: [], f() {} } }; } };`, {
      execution_mode: 'enforce',
    });
    await expect(run(chain).result).rejects.toThrow(/Plugin mine failed: its answer cannot be sent: .*could not be cloned/);
  });
});
