/**
 * What a plugin is to the chain (./plugin-chain.ts): hooks around one call.
 * Built-ins implement it directly; a plugin of your own is adapted to it
 * (./own-plugin.ts). A deliberate stop is a thrown GatewayError with a
 * blocking code (./blocks.ts); anything else a hook throws is a failure,
 * and what either does to the call is the execution mode's to decide.
 */
import type { Notification, ToolAnnotations } from '@modelcontextprotocol/client';
import type { PluginAction } from '../../schemas/audit-record.js';
import type { HookMethod } from '../../schemas/plugins.js';
import type { CallerContext, JsonObject } from '../routing/caller.js';

/** One tool call, prompt get or resource read, as the plugins see it. */
export interface PluginCall {
  readonly method: HookMethod;
  /** The exposed tool or prompt name, or the resource URI. */
  readonly name: string;
  readonly backend: string;
  /** The name at the backend. */
  readonly originalName: string;
  /** The tool's annotations from the route table (tool calls only). */
  readonly annotations?: ToolAnnotations;
  /** What the backend will receive: pre hooks replace it (never change the caller's object in place). Empty for resources. */
  arguments: JsonObject;
  readonly caller: CallerContext;
  /** Aborted when the client cancels or goes away. */
  readonly signal?: AbortSignal;
}

export type CallResult = JsonObject;

/** Answers the call instead of the backend (a cache hit, a plugin of your own). */
export type PreAnswer = { result: CallResult } | undefined | void;

/** What a plugin did, for the audit record and its counters (the chain adds the plugin's name). */
export type Report = (action: Omit<PluginAction, 'plugin'>) => void;

export interface Plugin {
  /** The methods it has hooks for; absent: all. */
  readonly methods?: ReadonlySet<HookMethod>;
  /** On the way in: may replace `call.arguments`, answer the call, or throw a block. */
  pre?(call: PluginCall, report: Report): PreAnswer | Promise<PreAnswer>;
  /** Around the rest of the chain and the backend (retry, circuit breaker): `next` may be called again, or not at all. */
  around?(call: PluginCall, next: () => Promise<CallResult>, report: Report): Promise<CallResult>;
  /** On the way out: returns the result, changed or not, or throws a block. Not called when the call failed. */
  post?(call: PluginCall, result: CallResult, report: Report): CallResult | Promise<CallResult>;
  /**
   * On the way out of a call that failed (the backend's error, or one the
   * plugins inside this one threw): returns the error to pass on, changed or
   * not, or throws a block in its place.
   */
  error?(call: PluginCall, err: unknown, report: Report): unknown;
  /**
   * A backend's notification on its way to the clients (a log message; it
   * belongs to no call): returns it, changed or not, or throws a block (it
   * is then not relayed). Synchronous, so notifications keep their order.
   */
  notification?(backend: string, notification: Notification, report: Report): Notification;
  /** On graceful shutdown and when a reload removes it. */
  unload?(): void | Promise<void>;
  /**
   * Nobody waits any longer for this promise a hook (or `unload`) returned:
   * it took longer than the plugin's `timeout_s` (`afterMs`). A plugin that
   * can stop the work does (a plugin of your own ends its worker).
   */
  abandon?(pending: Promise<unknown>, afterMs: number): void;
}
