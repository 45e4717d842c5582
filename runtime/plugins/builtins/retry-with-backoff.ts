/**
 * retry_with_backoff: a tool call that failed on the way (a timeout, a
 * connection lost or broken) is tried again, up to `max_retries` times, with
 * exponentially growing delays: only for tools annotated `idempotentHint`
 * or `readOnlyHint`, where a second run cannot do harm twice, and never for
 * an error the backend answered.
 */
import type { BuiltinSettings } from '../../../schemas/plugins.js';
import { errorType } from '../../observability/failure.js';
import type { CallResult, Plugin, PluginCall, Report } from '../plugin.js';
import { isTransportFailure } from './backend-failures.js';

export function retryWithBackoff(settings: BuiltinSettings<'retry_with_backoff'>): Plugin {
  const delayOf = (retry: number): number => {
    const full = Math.min(settings.max_delay_ms, settings.base_delay_ms * 2 ** (retry - 1));
    // Half fixed, half random: clients retrying together do not come back together.
    return Math.round(full / 2 + (Math.random() * full) / 2);
  };
  return {
    methods: new Set(['tools/call']),
    async around(call: PluginCall, next: () => Promise<CallResult>, report: Report): Promise<CallResult> {
      if (call.annotations?.idempotentHint !== true && call.annotations?.readOnlyHint !== true) return next();
      for (let retry = 1; ; retry++) {
        try {
          return await next();
        } catch (err) {
          if (retry > settings.max_retries || !isTransportFailure(err) || call.signal?.aborted) throw err;
          const delay = delayOf(retry);
          report({ action: 'retry', attempt: retry, delay_ms: delay, error_type: errorType(err) });
          await sleep(delay, call.signal);
          if (call.signal?.aborted) throw err;
        }
      }
    },
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
