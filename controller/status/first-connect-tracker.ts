/**
 * Which backends of the start-up config are still in their first connect
 * attempt: never yet out of Pending or Initializing. Until that attempt ends
 * what they serve is unknown (runtime/routing/first-connects.ts), and the
 * replica is not ready (GET /manage/v1/ready). A backend a reload adds later
 * does not count: a running replica stays ready while it connects.
 */
import type { FirstConnects } from '../../runtime/routing/first-connects.js';
import type { DesiredBackends } from '../../runtime/backends/serving-backends.js';
import type { StatusView } from './status-store.js';

export class FirstConnectTracker implements FirstConnects {
  private readonly waiting: Set<string>;
  private readonly wakers = new Set<() => void>();

  constructor(
    private readonly view: StatusView,
    private readonly desired: DesiredBackends,
    /** `controller.first_connect_wait_s` of the running config, in ms. */
    readonly waitMs: () => number,
  ) {
    this.waiting = new Set(desired.names().filter((name) => desired.get(name)?.enabled !== false));
    view.onChange((name) => this.observe(name));
  }

  pending(): number {
    return this.waiting.size;
  }

  /** The backends still in their first attempt, in config order. */
  pendingNames(): string[] {
    return this.desired.names().filter((name) => this.waiting.has(name));
  }

  nextEnd(deadline: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, deadline - Date.now()));
      this.wakers.add(wake);
    });
  }

  private observe(name: string): void {
    if (!this.waiting.has(name)) return;
    const status = this.view.get(name);
    const starting = status !== undefined && (status.phase === 'Pending' || status.phase === 'Initializing');
    // Removed or switched off by a reload while still connecting: nothing to wait for either.
    if (starting && this.desired.get(name)?.enabled !== false) return;
    this.waiting.delete(name);
    for (const wake of [...this.wakers]) wake();
  }
}
