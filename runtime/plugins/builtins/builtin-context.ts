/** What a built-in plugin is made with besides its settings. */
import type { Logger } from '../../observability/logging/logger.js';
import type { PluginEventSink } from '../plugin-events.js';
import type { RateCounterStore } from './rate-counter-store.js';

export interface BuiltinContext {
  /** The entry's name, for its errors. */
  name: string;
  log: Logger;
  events: PluginEventSink;
  /** Where rate_limiter counts (default: this process's memory). */
  rateStore: () => RateCounterStore;
}
