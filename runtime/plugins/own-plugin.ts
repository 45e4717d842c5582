/**
 * A plugin of your own (docs/plugins.md): an ES module whose default export,
 * or its named exports, are `{ name?, hooks: { tool_pre_invoke?(ctx), … },
 * on_load?(settings), on_unload?() }`. Its hooks are adapted to the chain's
 * plugin (./plugin.ts): a pre hook gets `ctx` and may change
 * `ctx.arguments`, return `{ arguments }` or `{ result }`, or call
 * `ctx.block(reason)`; a post hook gets `(ctx, result)` and returns the
 * result. Whatever else it throws is a failure.
 */
import { pathToFileURL } from 'node:url';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { PluginBlockedError } from '../../schemas/errors.js';
import type { HookMethod } from '../../schemas/plugins.js';
import type { JsonObject } from '../routing/caller.js';
import { clientIdentity } from './identity.js';
import type { CallResult, Plugin, PluginCall, PreAnswer, Report } from './plugin.js';

export const HOOK_POINTS = {
  tool_pre_invoke: ['tools/call', 'pre'],
  tool_post_invoke: ['tools/call', 'post'],
  prompt_pre_fetch: ['prompts/get', 'pre'],
  prompt_post_fetch: ['prompts/get', 'post'],
  resource_pre_fetch: ['resources/read', 'pre'],
  resource_post_fetch: ['resources/read', 'post'],
} as const satisfies Record<string, readonly [HookMethod, 'pre' | 'post']>;

type HookPoint = keyof typeof HOOK_POINTS;
const LIFECYCLE = ['on_load', 'on_unload'] as const;

/** What a hook of your own is given. */
export interface OwnHookContext {
  method: HookMethod;
  name: string;
  backend: string;
  /** Change in place, replace, or return `{ arguments }` (pre hooks). */
  arguments: JsonObject;
  /** The caller: its user when authenticated, else its address. */
  identity: string;
  session: string;
  annotations?: ToolAnnotations;
  settings: Record<string, unknown>;
  signal?: AbortSignal;
  /** Stops the call on purpose with this reason (it throws). */
  block(reason: string): never;
}

type Hook = (ctx: OwnHookContext, result?: CallResult) => unknown;

export interface OwnModule {
  name?: string;
  hooks: Partial<Record<HookPoint, Hook>>;
  on_load?(settings: Record<string, unknown>): unknown;
  on_unload?(): unknown;
}

/** Thrown for a module that does not have the shape above, naming what is wrong. */
export class PluginShapeError extends Error {}

/** Imports the module afresh when its file changed (`version`: its modification time). */
export async function importOwnModule(path: string, version: number): Promise<OwnModule> {
  const url = `${pathToFileURL(path).href}?v=${version}`;
  const exports = (await import(url)) as Record<string, unknown>;
  return shapeOf(exports);
}

function shapeOf(exports: Record<string, unknown>): OwnModule {
  const root = isObject(exports.default) && 'hooks' in exports.default ? exports.default : exports;
  const hooks = root.hooks;
  if (!isObject(hooks)) throw new PluginShapeError('exports no `hooks` object (see docs/plugins.md)');
  const known = new Set<string>([...Object.keys(HOOK_POINTS), ...LIFECYCLE]);
  for (const [key, value] of Object.entries(hooks)) {
    if (!known.has(key)) throw new PluginShapeError(`unknown hook \`${key}\` (hooks: ${[...known].join(', ')})`);
    if (typeof value !== 'function') throw new PluginShapeError(`hook \`${key}\` is not a function`);
  }
  const lifecycle = (key: (typeof LIFECYCLE)[number]): unknown => root[key] ?? hooks[key];
  for (const key of LIFECYCLE)
    if (lifecycle(key) !== undefined && typeof lifecycle(key) !== 'function') throw new PluginShapeError(`\`${key}\` is not a function`);
  return {
    name: typeof root.name === 'string' ? root.name : undefined,
    hooks: hooks as OwnModule['hooks'],
    on_load: lifecycle('on_load') as OwnModule['on_load'],
    on_unload: lifecycle('on_unload') as OwnModule['on_unload'],
  };
}

/** The chain's view of a module: its hooks by method, each given a context of its own. */
export function ownPlugin(name: string, mod: OwnModule, settings: Record<string, unknown>): Plugin {
  const pre = new Map<HookMethod, Hook>();
  const post = new Map<HookMethod, Hook>();
  for (const [point, hook] of Object.entries(mod.hooks) as Array<[HookPoint, Hook]>) {
    const [method, phase] = HOOK_POINTS[point] ?? [];
    if (method !== undefined) (phase === 'pre' ? pre : post).set(method, hook);
  }
  const block = (reason: string): never => {
    throw new PluginBlockedError(name, String(reason));
  };
  const contextOf = (call: PluginCall): OwnHookContext => ({
    method: call.method,
    name: call.name,
    backend: call.backend,
    arguments: call.arguments,
    identity: clientIdentity(call.caller),
    session: call.caller.sessionId,
    annotations: call.annotations,
    settings,
    signal: call.signal,
    block,
  });
  return {
    methods: new Set([...pre.keys(), ...post.keys()]),
    pre(call: PluginCall, report: Report): PreAnswer | Promise<PreAnswer> {
      const hook = pre.get(call.method);
      if (hook === undefined) return undefined;
      // A copy: a hook that changes the arguments in place must not change the caller's object.
      const ctx = contextOf({ ...call, arguments: structuredClone(call.arguments) } as PluginCall);
      const settle = (out: unknown): PreAnswer => {
        if (isObject(out) && isObject(out.result)) return { result: out.result };
        const args = isObject(out) && isObject(out.arguments) ? out.arguments : ctx.arguments;
        if (isObject(out) && out.arguments !== undefined) report({ action: 'modify', where: 'arguments' });
        call.arguments = args;
        return undefined;
      };
      const out = hook(ctx);
      return isPromise(out) ? out.then(settle) : settle(out);
    },
    post(call: PluginCall, result: CallResult, report: Report): CallResult | Promise<CallResult> {
      const hook = post.get(call.method);
      if (hook === undefined) return result;
      const settle = (out: unknown): CallResult => {
        if (!isObject(out) || out === result) return result;
        report({ action: 'modify', where: 'result' });
        return out;
      };
      const out = hook(contextOf(call), result);
      return isPromise(out) ? out.then(settle) : settle(out);
    },
    unload: mod.on_unload && (() => mod.on_unload!() as void | Promise<void>),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
