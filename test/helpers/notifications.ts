/** Every notification an SDK client receives, for a test to wait on. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Notification } from '@modelcontextprotocol/sdk/types.js';

/**
 * Records every notification a client receives (whatever the method), so a
 * test can wait for one. Uses the SDK's fallback handler: per-method handlers
 * set by the test still take precedence.
 */
export interface NotificationLog {
  all: Notification[];
  waitFor(method: string, pred?: (n: Notification) => boolean, timeoutMs?: number): Promise<Notification>;
  count(method: string): number;
}

export function collectNotifications(client: Client): NotificationLog {
  const all: Notification[] = [];
  const waiters = new Set<() => void>();
  client.fallbackNotificationHandler = async (n) => {
    all.push(n);
    for (const w of [...waiters]) w();
  };
  return {
    all,
    count: (method) => all.filter((n) => n.method === method).length,
    waitFor(method, pred = () => true, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = all.find((n) => n.method === method && pred(n));
          if (!hit) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(hit);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${method} notification within ${timeoutMs} ms; got: ${JSON.stringify(all.map((n) => n.method))}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}
