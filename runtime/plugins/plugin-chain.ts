/**
 * The plugin chain of one config: the plugins in priority order around the
 * call to the backend, like the router's interceptors. Pre hooks run in
 * chain order on the way in, post hooks in reverse order on the way out, so
 * the first plugin sees the arguments first and the result last; a pre hook
 * that answers (a cache hit) skips the plugins after it and the backend. A
 * call that failed passes the error hooks on the way out instead of the post
 * hooks, and a backend's notification relayed to clients (a log message)
 * passes the notification hooks in the same order: every text a guard reads
 * on the way out flows through it.
 *
 * What a plugin's block or failure does to the call is its execution mode's
 * to decide, here and nowhere else: `enforce` fails the call on both,
 * `enforce_ignore_error` on a block only, `permissive` on neither (a block
 * is logged). Every block, change, cache hit, retry and failure is counted
 * and written into the operation's audit record (kinds, never values).
 */
import type { Notification } from '@modelcontextprotocol/client';
import { PluginFailedError } from '../../schemas/errors.js';
import type { PluginAction } from '../../schemas/audit-record.js';
import type { ExecutionMode } from '../../schemas/plugins.js';
import type { Logger } from '../observability/logging/logger.js';
import { errorMessage, errorType } from '../observability/failure.js';
import type { OperationContext } from '../routing/operation.js';
import type { JsonObject } from '../routing/caller.js';
import type { CallResult, Plugin, PluginCall, Report } from './plugin.js';
import { count, type PluginCounters } from './counters.js';
import { isBlock } from './blocks.js';
import { withTimeout } from './timeout.js';
import { failureReason } from './plugin-failures.js';

export interface ChainLink {
  readonly name: string;
  readonly mode: Exclude<ExecutionMode, 'disabled'>;
  readonly timeoutMs: number;
  readonly plugin: Plugin;
  readonly counters: PluginCounters;
  /** Its conditions (and the methods it has hooks for); absent: every call. */
  readonly applies?: (call: PluginCall) => boolean;
  /** Whose notifications it sees (`conditions.backends`); absent: every backend's. */
  readonly hears?: (backend: string) => boolean;
}

/** The last step: the call to the backend with the arguments the chain leaves. */
export type Forward = (args: JsonObject) => Promise<CallResult>;

/** A hook's failure or block that its mode lets the call survive. */
const IGNORED = Symbol('ignored');

export class PluginChain {
  constructor(
    readonly links: readonly ChainLink[],
    private readonly log: Logger,
  ) {}

  run(op: OperationContext, call: PluginCall, forward: Forward): Promise<CallResult> {
    return this.step(0, op, call, forward);
  }

  private async step(i: number, op: OperationContext, call: PluginCall, forward: Forward): Promise<CallResult> {
    if (i === this.links.length) return forward(call.arguments);
    const link = this.links[i];
    const next = (): Promise<CallResult> => this.step(i + 1, op, call, forward);
    if (link.applies !== undefined && !link.applies(call)) return next();
    link.counters.invocations++;
    const report: Report = (action) => this.record(link, op, action);
    const { plugin } = link;
    if (plugin.pre) {
      const answer = await this.guard(link, call, report, () => plugin.pre!(call, report));
      if (answer !== IGNORED && answer) return answer.result;
    }
    let result: CallResult;
    try {
      result = plugin.around ? await this.around(link, call, report, next) : await next();
    } catch (err) {
      if (!plugin.error) throw err;
      throw await this.reword(link, call, report, err);
    }
    if (!plugin.post) return result;
    const changed = await this.guard(link, call, report, () => plugin.post!(call, result, report));
    return changed === IGNORED ? result : changed;
  }

  /**
   * A backend's notification on its way to the clients, through the
   * notification hooks in post-hook order (the last plugin first); undefined
   * when a plugin kept it from them (a block, or a failure under `enforce`:
   * nothing passes a guard that did not look). Counted, not audited: a
   * notification belongs to no operation.
   */
  relay(backend: string, notification: Notification): Notification | undefined {
    let relayed = notification;
    for (let i = this.links.length - 1; i >= 0; i--) {
      const link = this.links[i];
      if (!link.plugin.notification || (link.hears !== undefined && !link.hears(backend))) continue;
      const report: Report = (action) => count(link.counters, action.action);
      try {
        relayed = link.plugin.notification(backend, relayed, report);
      } catch (err) {
        const at = { plugin: link.name, method: notification.method, backend };
        try {
          this.settle(link, at, report, err);
        } catch (stopped) {
          this.log.warn(
            { ...at, error: errorType(stopped) },
            `plugin ${link.name} kept a ${notification.method} of ${backend} from the clients: ${errorMessage(stopped)}`,
          );
          return undefined;
        }
      }
    }
    return relayed;
  }

  /** A failed call's error on its way out: the plugin may reword it (a redaction), or block in its place. */
  private async reword(link: ChainLink, call: PluginCall, report: Report, err: unknown): Promise<unknown> {
    const out = await this.guard(link, call, report, () => link.plugin.error!(call, err, report));
    return out === IGNORED ? err : out;
  }

  /**
   * Runs one hook; a hook that returns a promise gets the plugin's timeout
   * (a synchronous one needs no timer), and the plugin is told when the
   * chain gives up on it (a plugin of your own ends its worker).
   */
  private async guard<T>(link: ChainLink, call: PluginCall, report: Report, hook: () => T | Promise<T>): Promise<T | typeof IGNORED> {
    try {
      const out = hook();
      if (!isPromise(out)) return out;
      const { plugin, timeoutMs } = link;
      return await withTimeout(out, timeoutMs, 'the hook', plugin.abandon && (() => plugin.abandon!(out, timeoutMs)));
    } catch (err) {
      return this.settle(link, where(link, call), report, err);
    }
  }

  /**
   * An `around` hook calls the rest of the chain itself: what that throws
   * passes through untouched; only what the plugin throws on its own is its
   * block or failure. When its mode lets the call go on, the call goes on
   * as if the plugin were not there (without calling the backend twice).
   */
  private async around(link: ChainLink, call: PluginCall, report: Report, next: () => Promise<CallResult>): Promise<CallResult> {
    const inner = new WeakSet<object>();
    let reached: Promise<CallResult> | undefined;
    const tracked = (): Promise<CallResult> => {
      reached = next().catch((err: unknown) => {
        if (typeof err === 'object' && err !== null) inner.add(err);
        throw err;
      });
      return reached;
    };
    try {
      return await link.plugin.around!(call, tracked, report);
    } catch (err) {
      if (typeof err === 'object' && err !== null && inner.has(err)) throw err;
      this.settle(link, where(link, call), report, err);
      return reached ?? tracked();
    }
  }

  /** A block or failure: thrown on when the mode says so, else logged and IGNORED. */
  private settle(link: ChainLink, at: Record<string, string>, report: Report, err: unknown): typeof IGNORED {
    if (isBlock(err)) {
      const enforced = link.mode !== 'permissive';
      const { kinds, where } = err.details as Pick<PluginAction, 'kinds' | 'where'>;
      report({ action: 'block', reason: err.code, enforced, ...(kinds && { kinds }), ...(where && { where }) });
      if (enforced) throw err;
      this.log.warn({ ...at, error: err.code }, `plugin ${link.name} would block this call (permissive): ${err.message}`);
      return IGNORED;
    }
    const reason = failureReason(err);
    report({ action: 'error', reason, error_type: errorType(err) });
    this.log.warn({ ...at, reason, mode: link.mode }, `plugin ${link.name} failed: ${errorMessage(err)}`);
    if (link.mode === 'enforce') throw new PluginFailedError(link.name, errorMessage(err));
    return IGNORED;
  }

  private record(link: ChainLink, op: OperationContext, action: Omit<PluginAction, 'plugin'>): void {
    count(link.counters, action.action);
    (op.plugins ??= []).push({ plugin: link.name, ...action });
  }
}

/** What a log line about a plugin and a call names. */
function where(link: ChainLink, call: PluginCall): Record<string, string> {
  return { plugin: link.name, method: call.method, name: call.name, backend: call.backend };
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}
