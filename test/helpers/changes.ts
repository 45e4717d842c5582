/**
 * Wait for a condition on state that callbacks change, without polling or
 * sleeping: whoever changes the state calls `notify()`, and every pending
 * `until()` re-checks its condition. The deadline only turns a hang into a
 * readable failure; it never decides a result.
 */
const DEADLINE_MS = 10_000;

export class Changes {
  private readonly waiters = new Set<() => void>();

  notify(): void {
    for (const check of [...this.waiters]) check();
  }

  /** Resolves with the first truthy value of `cond`, checked now and after every notify(). */
  until<T>(cond: () => T | undefined | null | false, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const value = cond();
        if (!value) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}`));
      }, DEADLINE_MS);
      this.waiters.add(check);
      check();
    });
  }
}
