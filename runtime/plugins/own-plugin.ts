/**
 * A plugin of your own (docs/plugins.md), as the chain sees it. Its module
 * runs in a worker thread of its own (./plugin-worker.ts), so a hook that
 * never returns, or a module that never finishes loading, costs the plugin
 * its worker and the call its `timeout_s`, never the gateway: when the chain
 * stops waiting, the worker is ended (an event says so) and started afresh.
 *
 * A hook gets its call as plain data (structured clone) and answers with
 * plain data: a pre hook may change `ctx.arguments`, return `{ arguments }`
 * or `{ result }`, or call `ctx.block(reason)`; a post hook returns the
 * result. Whatever else it throws is a failure.
 */
import { PluginBlockedError } from '../../schemas/errors.js';
import type { HookMethod } from '../../schemas/plugins.js';
import { clientIdentity } from './identity.js';
import { HOOK_POINTS, type HookPoint } from './own-module.js';
import type { HookReply, WireContext } from './own-plugin-protocol.js';
import type { CallResult, Plugin, PluginCall, PreAnswer, Report } from './plugin.js';
import type { PluginEventSink } from './plugin-events.js';
import { PluginWorker } from './plugin-worker.js';

export interface OwnPluginSpec {
  /** The entry's name. */
  name: string;
  /** The module, an absolute path. */
  path: string;
  settings: Record<string, unknown>;
  /** Its `timeout_s`: importing the module and `on_load` together may take this long. */
  timeoutMs: number;
  events: PluginEventSink;
}

/** Starts the module's worker; fails when the module does not load within its timeout (the worker is ended then). */
export async function loadOwnPlugin(spec: OwnPluginSpec): Promise<Plugin> {
  const worker = new PluginWorker({ path: spec.path, settings: spec.settings, loadTimeoutMs: spec.timeoutMs });
  return ownPlugin(spec, worker, await worker.start());
}

function ownPlugin(spec: OwnPluginSpec, worker: PluginWorker, hooks: readonly HookPoint[]): Plugin {
  const pre = new Map<HookMethod, HookPoint>();
  const post = new Map<HookMethod, HookPoint>();
  for (const point of hooks) {
    const [method, phase] = HOOK_POINTS[point];
    (phase === 'pre' ? pre : post).set(method, point);
  }
  /** Which hook and call each pending answer is, for the event when the chain gives up on one. */
  const asked = new WeakMap<Promise<unknown>, { point: HookPoint; call: PluginCall }>();
  const ask = <T>(point: HookPoint, call: PluginCall, result: CallResult | undefined, settle: (reply: HookReply) => T): Promise<T> => {
    const pending = worker.call({ hook: point, ctx: wireContext(call), result }, call.signal).then((reply) => settle(answered(spec.name, reply)));
    asked.set(pending, { point, call });
    return pending;
  };
  return {
    methods: new Set([...pre.keys(), ...post.keys()]),
    pre(call: PluginCall, report: Report): PreAnswer | Promise<PreAnswer> {
      const point = pre.get(call.method);
      if (point === undefined) return undefined;
      return ask(point, call, undefined, (reply): PreAnswer => {
        if ('result' in reply) return { result: reply.result };
        if (!('arguments' in reply)) return undefined;
        if (reply.modified) report({ action: 'modify', where: 'arguments' });
        call.arguments = reply.arguments;
        return undefined;
      });
    },
    post(call: PluginCall, result: CallResult, report: Report): CallResult | Promise<CallResult> {
      const point = post.get(call.method);
      if (point === undefined) return result;
      return ask(point, call, result, (reply) => {
        if (!('result' in reply)) return result;
        // The same object returned may have been changed in place: its copy is taken, as a change of its own is not reported.
        if (reply.replaced) report({ action: 'modify', where: 'result' });
        return reply.result;
      });
    },
    abandon(pending: Promise<unknown>, afterMs: number): void {
      const what = asked.get(pending);
      const ended = worker.restart(`a hook took longer than timeout_s (${afterMs / 1000} s)`);
      if (what === undefined) return;
      spec.events({
        stage: 'plugin_timed_out',
        backend: what.call.backend,
        severity: 'warning',
        message:
          `plugin ${spec.name}: ${what.point} of ${what.call.name} took longer than its timeout_s (${afterMs / 1000} s); ` +
          `its worker was ended (${ended} hook call(s) in it failed) and is started afresh`,
        details: { plugin: spec.name, hook: what.point, name: what.call.name, timeout_s: afterMs / 1000, calls_ended: ended },
      });
    },
    unload: () => worker.close(),
  };
}

/** What the hook is told: plain data (the worker adds settings, signal and block). */
function wireContext(call: PluginCall): WireContext {
  return {
    method: call.method,
    name: call.name,
    backend: call.backend,
    arguments: call.arguments,
    identity: clientIdentity(call.caller),
    session: call.caller.sessionId,
    ...(call.annotations && { annotations: call.annotations }),
  };
}

/** A block or a failure thrown as the chain knows them; anything else is the hook's answer. */
function answered(plugin: string, reply: HookReply): HookReply {
  if ('block' in reply) throw new PluginBlockedError(plugin, reply.block);
  if ('error' in reply) throw reply.error instanceof Error ? reply.error : new Error(String(reply.error));
  return reply;
}
