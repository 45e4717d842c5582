/**
 * The plugin chain (runtime/plugins/plugin-chain.ts) with plugins written the
 * way the built-ins are (objects with hooks): the order hooks run in, a pre
 * hook that answers, what each execution mode does with a block and with a
 * failure (a throw, a timeout), `around` hooks, error rewording, relayed
 * notifications, and what is counted and written into the audit record.
 */
import { describe, expect, it } from 'vitest';
import type { Notification } from '@modelcontextprotocol/client';
import { PluginChain, type ChainLink } from '../../../../runtime/plugins/plugin-chain.js';
import { newCounters } from '../../../../runtime/plugins/counters.js';
import type { CallResult, Plugin, PluginCall } from '../../../../runtime/plugins/plugin.js';
import type { OperationContext } from '../../../../runtime/routing/operation.js';
import type { JsonObject } from '../../../../runtime/routing/caller.js';
import { silentLogger } from '../../../../runtime/observability/logging/logger.js';
import { PluginBlockedError, PluginFailedError } from '../../../../schemas/errors.js';
import type { ExecutionMode } from '../../../../schemas/plugins.js';

type Mode = Exclude<ExecutionMode, 'disabled'>;

function link(name: string, plugin: Plugin, mode: Mode = 'enforce', extra: Partial<ChainLink> = {}): ChainLink {
  return { name, mode, timeoutMs: 1_000, plugin, counters: newCounters(), ...extra };
}

function callOf(args: JsonObject = { a: 1 }): PluginCall {
  return {
    method: 'tools/call',
    name: 'b_echo',
    backend: 'b',
    originalName: 'echo',
    arguments: args,
    caller: { sessionId: 's', transport: 'streamable-http' },
  };
}

const op = (): OperationContext => ({ method: 'call_tool', capability: 'b_echo', sessionId: 's', transport: 'streamable-http' });

/** The backend: records the arguments of each call, answers with them. */
function backend(calls: JsonObject[] = []) {
  const forward = async (args: JsonObject): Promise<CallResult> => {
    calls.push(args);
    return { content: [{ type: 'text', text: JSON.stringify(args) }] };
  };
  return { calls, forward };
}

/** A plugin that writes what its hooks saw into `trace`. */
function tracer(name: string, trace: string[]): Plugin {
  return {
    pre: (call) => {
      trace.push(`${name}.pre`);
      call.arguments = { ...call.arguments, [name]: true };
    },
    post: (_call, result) => {
      trace.push(`${name}.post`);
      return { ...result, [name]: true };
    },
  };
}

const blocker = (when: 'pre' | 'post'): Plugin => ({
  [when]: () => {
    throw new PluginBlockedError('guard', 'not allowed', { kinds: ['secret'], where: 'arguments' });
  },
});
const failing: Plugin = {
  pre: () => {
    throw new Error('boom');
  },
};

describe('plugin chain: order and answers', () => {
  it('pre hooks in chain order, post hooks in reverse; the backend gets the arguments the pre hooks leave', async () => {
    const trace: string[] = [];
    const b = backend();
    const chain = new PluginChain([link('one', tracer('one', trace)), link('two', tracer('two', trace))], silentLogger());
    const result = await chain.run(op(), callOf(), b.forward);
    expect(trace).toEqual(['one.pre', 'two.pre', 'two.post', 'one.post']);
    expect(b.calls).toEqual([{ a: 1, one: true, two: true }]);
    expect(result).toMatchObject({ one: true, two: true });
  });

  it('a pre hook that answers skips the plugins after it and the backend; the plugins before it still see the answer', async () => {
    const trace: string[] = [];
    const b = backend();
    const cache: Plugin = {
      pre: (_call, report) => {
        report({ action: 'cache_hit' });
        return { result: { cached: true } };
      },
    };
    const chain = new PluginChain([link('outer', tracer('outer', trace)), link('cache', cache), link('inner', tracer('inner', trace))], silentLogger());
    const o = op();
    expect(await chain.run(o, callOf(), b.forward)).toEqual({ cached: true, outer: true });
    expect(trace).toEqual(['outer.pre', 'outer.post']);
    expect(b.calls).toEqual([]);
    expect(o.plugins).toEqual([{ plugin: 'cache', action: 'cache_hit' }]);
    expect(chain.links[1]!.counters).toMatchObject({ invocations: 1, cache_hits: 1 });
  });

  it('a plugin whose conditions do not match is skipped and not counted', async () => {
    const trace: string[] = [];
    const chain = new PluginChain([link('off', tracer('off', trace), 'enforce', { applies: () => false })], silentLogger());
    await chain.run(op(), callOf(), backend().forward);
    expect(trace).toEqual([]);
    expect(chain.links[0]!.counters.invocations).toBe(0);
  });
});

describe('plugin chain: execution modes', () => {
  it('a block: enforce and enforce_ignore_error stop the call; permissive lets it through; each is recorded with whether it was enforced', async () => {
    for (const mode of ['enforce', 'enforce_ignore_error'] as const) {
      const b = backend();
      const o = op();
      const chain = new PluginChain([link('guard', blocker('pre'), mode)], silentLogger());
      await expect(chain.run(o, callOf(), b.forward)).rejects.toBeInstanceOf(PluginBlockedError);
      expect(b.calls).toEqual([]);
      expect(o.plugins).toEqual([{ plugin: 'guard', action: 'block', reason: 'plugin_blocked', enforced: true, kinds: ['secret'], where: 'arguments' }]);
    }
    const b = backend();
    const o = op();
    const chain = new PluginChain([link('guard', blocker('post'), 'permissive')], silentLogger());
    expect(await chain.run(o, callOf(), b.forward)).toEqual({ content: [{ type: 'text', text: '{"a":1}' }] });
    expect(o.plugins).toEqual([{ plugin: 'guard', action: 'block', reason: 'plugin_blocked', enforced: false, kinds: ['secret'], where: 'arguments' }]);
    expect(chain.links[0]!.counters.blocks).toBe(1);
  });

  it('a failure: enforce fails the call with plugin_failed; enforce_ignore_error and permissive go on as if the plugin were not there', async () => {
    const o = op();
    const strict = new PluginChain([link('flaky', failing, 'enforce')], silentLogger());
    const err = await strict.run(o, callOf(), backend().forward).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PluginFailedError);
    expect((err as Error).message).toBe('Plugin flaky failed: boom');
    expect(o.plugins).toEqual([{ plugin: 'flaky', action: 'error', reason: 'threw', error_type: 'Error' }]);
    for (const mode of ['enforce_ignore_error', 'permissive'] as const) {
      const b = backend();
      const chain = new PluginChain([link('flaky', failing, mode)], silentLogger());
      await chain.run(op(), callOf(), b.forward);
      expect(b.calls).toEqual([{ a: 1 }]);
      expect(chain.links[0]!.counters.errors).toBe(1);
    }
  });

  it('a hook past its timeout is a failure (reason timeout), and the plugin is told its promise was abandoned', async () => {
    const abandoned: number[] = [];
    const never = new Promise<undefined>(() => undefined);
    const slow: Plugin = { pre: () => never, abandon: (pending, afterMs) => void (pending === never && abandoned.push(afterMs)) };
    const o = op();
    const chain = new PluginChain([link('slow', slow, 'enforce', { timeoutMs: 20 })], silentLogger());
    await expect(chain.run(o, callOf(), backend().forward)).rejects.toBeInstanceOf(PluginFailedError);
    expect(o.plugins).toEqual([expect.objectContaining({ plugin: 'slow', action: 'error', reason: 'timeout' })]);
    expect(abandoned).toEqual([20]);
  });
});

describe('plugin chain: around and error hooks', () => {
  it('what the rest of the chain throws passes an around hook untouched, even a permissive one', async () => {
    const passing: Plugin = { around: (_call, next) => next() };
    const inner = new PluginBlockedError('inner', 'no');
    const chain = new PluginChain([link('retry', passing, 'permissive'), link('inner', { pre: () => Promise.reject(inner) })], silentLogger());
    await expect(chain.run(op(), callOf(), backend().forward)).rejects.toBe(inner);
    expect(chain.links[0]!.counters).toMatchObject({ blocks: 0, errors: 0 });
  });

  it('an around hook that fails on its own under a lenient mode: the call goes on, and the backend is called once', async () => {
    for (const called of [false, true]) {
      const b = backend();
      const broken: Plugin = {
        around: async (_call, next) => {
          if (called) await next();
          throw new Error('around broke');
        },
      };
      const chain = new PluginChain([link('breaker', broken, 'enforce_ignore_error')], silentLogger());
      expect(await chain.run(op(), callOf(), b.forward)).toEqual({ content: [{ type: 'text', text: '{"a":1}' }] });
      expect(b.calls).toHaveLength(1);
    }
  });

  it('an error hook rewords a failed call on the way out; post hooks do not run for it', async () => {
    const trace: string[] = [];
    const redact: Plugin = { error: (_call, err) => new Error(String((err as Error).message).replace('hunter2', '[redacted]')) };
    const chain = new PluginChain([link('redact', redact), link('t', tracer('t', trace))], silentLogger());
    const failingBackend = async (): Promise<CallResult> => {
      throw new Error('password hunter2 rejected');
    };
    await expect(chain.run(op(), callOf(), failingBackend)).rejects.toThrow('password [redacted] rejected');
    expect(trace).toEqual(['t.pre']);
  });
});

describe('plugin chain: relayed notifications', () => {
  const log = (text: string): Notification => ({ method: 'notifications/message', params: { level: 'info', data: text } });

  it('pass the notification hooks last plugin first, only of the plugins that hear that backend; a block keeps it from the clients', () => {
    const order: string[] = [];
    const tag = (name: string): Plugin => ({
      notification: (_backend, n) => {
        order.push(name);
        return { ...n, params: { ...n.params, data: `${String(n.params?.data)}+${name}` } };
      },
    });
    const chain = new PluginChain(
      [link('first', tag('first')), link('deaf', tag('deaf'), 'enforce', { hears: (b) => b === 'other' }), link('last', tag('last'))],
      silentLogger(),
    );
    expect(chain.relay('b', log('x'))).toEqual(log('x+last+first'));
    expect(order).toEqual(['last', 'first']);

    const guard: Plugin = {
      notification: () => {
        throw new PluginBlockedError('guard', 'secret in a log message');
      },
    };
    const guarded = new PluginChain([link('guard', guard)], silentLogger());
    expect(guarded.relay('b', log('token=abc'))).toBeUndefined();
    expect(guarded.links[0]!.counters.blocks).toBe(1);
    const lenient = new PluginChain([link('guard', guard, 'permissive')], silentLogger());
    expect(lenient.relay('b', log('token=abc'))).toEqual(log('token=abc'));
  });
});
