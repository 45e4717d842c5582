/**
 * rate_limiter: at most `max_requests` calls per `window_s` and key; the key
 * is the client (the authenticated user, else its address), the session, the
 * tool (or prompt, or resource) or the backend. Over the limit the call
 * fails with `rate_limited` and `retry_after_s`: when the window ends.
 */
import { RateLimitedError } from '../../../schemas/errors.js';
import type { BuiltinSettings, RateLimitScope } from '../../../schemas/plugins.js';
import { clientIdentity } from '../identity.js';
import type { Plugin, PluginCall } from '../plugin.js';
import type { BuiltinContext } from './builtin-context.js';
import type { RateWindow } from './rate-counter-store.js';

const KEY_OF: Record<RateLimitScope, (call: PluginCall) => string> = {
  client: (call) => `client:${clientIdentity(call.caller)}`,
  session: (call) => `session:${call.caller.sessionId}`,
  tool: (call) => `${call.method}:${call.name}`,
  backend: (call) => `backend:${call.backend}`,
};

export function rateLimiter(settings: BuiltinSettings<'rate_limiter'>, ctx: BuiltinContext): Plugin {
  const store = ctx.rateStore();
  const windowMs = settings.window_s * 1000;
  const keyOf = KEY_OF[settings.per];
  const check = (window: RateWindow, now: number): undefined => {
    if (window.count <= settings.max_requests) return undefined;
    throw new RateLimitedError(ctx.name, settings.per, Math.max(1, Math.ceil((window.resetAt - now) / 1000)));
  };
  return {
    pre(call) {
      const now = Date.now();
      const window = store.hit(keyOf(call), windowMs, now);
      return window instanceof Promise ? window.then((w) => check(w, now)) : check(window, now);
    },
  };
}
