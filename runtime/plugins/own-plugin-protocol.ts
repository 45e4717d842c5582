/**
 * What the gateway (./plugin-worker.ts) and a plugin's worker
 * (./own-plugin-worker.js) say to each other over the MessageChannel they
 * share: one message per hook call each way, structured-cloned (no JSON).
 */
import type { MessagePort } from 'node:worker_threads';
import type { ToolAnnotations } from '@modelcontextprotocol/client';
import type { HookMethod } from '../../schemas/plugins.js';
import type { JsonObject } from '../routing/caller.js';
import type { HookPoint } from './own-module.js';

/** `workerData`: the module to import, the entry's settings (sent once) and the worker's end of the channel. */
export interface WorkerStart {
  path: string;
  settings: Record<string, unknown>;
  port: MessagePort;
}

/** What a hook of your own is told of its call; its worker adds `settings`, `signal` and `block()`. */
export interface WireContext {
  method: HookMethod;
  name: string;
  backend: string;
  arguments: JsonObject;
  identity: string;
  session: string;
  annotations?: ToolAnnotations;
}

/** Run a hook; a post hook gets the result too. */
export interface HookRequest {
  hook: HookPoint;
  ctx: WireContext;
  result?: JsonObject;
}

export type ToWorker =
  | ({ id: number } & HookRequest)
  /** Run `on_unload`. */
  | { id: number; unload: true }
  /** The client cancelled call `id`: its `ctx.signal` aborts. */
  | { cancel: number };

export type HookReply =
  /** A pre hook answered the call; a post hook returned the result (`replaced`: another object than it was given). */
  | { result: JsonObject; replaced?: boolean }
  /** A pre hook let the call go on with these arguments (`modified`: it returned them). */
  | { arguments: JsonObject; modified: boolean }
  /** A post hook kept the result; `on_unload` is done. */
  | { keep: true }
  /** `ctx.block(reason)`. */
  | { block: string }
  /** Anything else it threw (an Error survives structured cloning). */
  | { error: unknown };

export type FromWorker = { ready: HookPoint[] } | { failed: string } | ({ id: number } & HookReply);
