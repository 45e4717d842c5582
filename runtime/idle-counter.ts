/** Counts work in progress and tells waiters when it drops to zero (graceful shutdown waits on these). */
export class IdleCounter {
  private active = 0;
  private waiters: Array<() => void> = [];

  get size(): number {
    return this.active;
  }

  /** Counts one piece of work; returns the function that ends it (safe to call more than once). */
  begin(): () => void {
    this.active++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.active > 0) return;
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    };
  }

  /** Resolves when nothing is in progress (at once if nothing is). */
  whenIdle(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
