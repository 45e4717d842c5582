/**
 * response_cache: answers of read-only tools (`readOnlyHint: true`),
 * resources and prompts kept for `ttl_s`, at most `max_entries` (least
 * recently used first out). The key is whose answer it is (the user, else
 * the session: ../identity.ts), the method, the backend, the name and the
 * arguments in canonical form (keys sorted), hashed. A tool's `isError`
 * result is never kept. A hit answers without the backend; what the plugins
 * inside it did to the answer (redaction, truncation) was kept with it.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { stringify } from 'safe-stable-stringify';
import type { BuiltinSettings } from '../../../schemas/plugins.js';
import { cacheIdentity } from '../identity.js';
import type { CallResult, Plugin, PluginCall, Report } from '../plugin.js';

export class ResponseCache implements Plugin {
  private readonly answers: LRUCache<string, CallResult>;
  /** The key of each call in flight, as its arguments were when it passed (plugins inside may change them). */
  private readonly keys = new WeakMap<PluginCall, string>();

  constructor(settings: BuiltinSettings<'response_cache'>) {
    this.answers = new LRUCache({ max: settings.max_entries, ttl: settings.ttl_s * 1000 });
  }

  pre(call: PluginCall, report: Report): { result: CallResult } | undefined {
    if (!cacheable(call)) return undefined;
    const key = keyOf(call);
    const hit = this.answers.get(key);
    if (hit !== undefined) {
      report({ action: 'cache_hit' });
      // A copy: the plugins outside, or the caller, may change what they are given.
      return { result: structuredClone(hit) };
    }
    this.keys.set(call, key);
    return undefined;
  }

  post(call: PluginCall, result: CallResult): CallResult {
    const key = this.keys.get(call);
    if (key !== undefined && result.isError !== true) this.answers.set(key, structuredClone(result));
    return result;
  }
}

function cacheable(call: PluginCall): boolean {
  return call.method !== 'tools/call' || call.annotations?.readOnlyHint === true;
}

function keyOf(call: PluginCall): string {
  const material = stringify([cacheIdentity(call.caller), call.method, call.backend, call.name, call.arguments]);
  return createHash('sha256')
    .update(material ?? '')
    .digest('base64');
}
