/**
 * A plugin's hook (or its loading, or `on_unload`) may take at most its
 * `timeout_s`. Nobody waits longer; `onTimeout` may stop the work (a plugin
 * of your own ends its worker), else it keeps running unheard.
 */

export class HookTimeout extends Error {
  constructor(what: string, ms: number) {
    super(`${what} timed out after ${ms / 1000} s`);
  }
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what = 'the hook', onTimeout?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new HookTimeout(what, ms));
      onTimeout?.();
    }, ms);
  });
  return Promise.race([promise, expiry]).finally(() => clearTimeout(timer));
}
