/** The built-in plugins by name; each is made from its settings (validated, defaults filled, by the config loader). */
import type { BuiltinName, BuiltinSettings } from '../../../schemas/plugins.js';
import type { Plugin } from '../plugin.js';
import type { BuiltinContext } from './builtin-context.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { markdownCleaner } from './markdown-cleaner.js';
import { outputLengthGuard } from './output-length-guard.js';
import { piiFilter } from './pii-filter.js';
import { rateLimiter } from './rate-limiter.js';
import { ResponseCache } from './response-cache.js';
import { retryWithBackoff } from './retry-with-backoff.js';
import { secretsDetection } from './secrets-detection.js';

type Factories = { [N in BuiltinName]: (settings: BuiltinSettings<N>, ctx: BuiltinContext) => Plugin };

const FACTORIES: Factories = {
  rate_limiter: rateLimiter,
  circuit_breaker: (settings, ctx) => new CircuitBreaker(settings, ctx),
  retry_with_backoff: retryWithBackoff,
  response_cache: (settings) => new ResponseCache(settings),
  output_length_guard: outputLengthGuard,
  secrets_detection: secretsDetection,
  pii_filter: piiFilter,
  markdown_cleaner: markdownCleaner,
};

export function createBuiltin(name: BuiltinName, settings: Record<string, unknown>, ctx: BuiltinContext): Plugin {
  return (FACTORIES[name] as (settings: Record<string, unknown>, ctx: BuiltinContext) => Plugin)(settings, ctx);
}
