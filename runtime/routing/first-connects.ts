/**
 * Backends in their first connect attempt since the gateway started: until
 * that attempt ends, which names they serve is not known (a tool is listed
 * by its backend only once connected, and the router cannot tell which
 * backend a name it has never seen belongs to). So a name no backend serves
 * and a list wait for those first attempts, bounded
 * (`controller.first_connect_wait_s`), rather than answer "unknown" or a
 * partial list while the answer may still change; past the bound the name
 * gets a retryable error and the list says it is incomplete
 * (docs/controller.md). The controller keeps the count
 * (controller/status/first-connect-tracker.ts).
 */
export interface FirstConnects {
  /** Enabled backends still in their first connect attempt. */
  pending(): number;
  /** Resolves when one of those attempts ends, or at `deadline` (ms epoch). */
  nextEnd(deadline: number): Promise<void>;
  /** How long a request waits for them at most (ms). */
  waitMs(): number;
}

/** Nothing to wait for (tests, a gateway with no controller). */
export const NO_FIRST_CONNECTS: FirstConnects = { pending: () => 0, nextEnd: () => Promise.resolve(), waitMs: () => 0 };

/** What a name not known while backends still connect is told: ask again in this many seconds. */
export const FIRST_CONNECT_RETRY_S = 2;

/** Where a list served while backends still connect says so (its `_meta`). */
export const INCOMPLETE_LIST_META = 'mcp-gateway/incomplete';

const LIST_METHODS: ReadonlySet<string> = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

/**
 * Looks again each time a first connect ends, until `look` finds something,
 * none is pending any more, or the bound is reached: what `look` found last.
 * Costs nothing when no backend is in its first connect.
 */
export async function afterFirstConnects<T>(first: FirstConnects, look: () => T | undefined): Promise<T | undefined> {
  let found = look();
  if (found !== undefined || first.pending() === 0) return found;
  const deadline = Date.now() + first.waitMs();
  while (found === undefined && first.pending() > 0 && Date.now() < deadline) {
    await first.nextEnd(deadline);
    found = look();
  }
  return found;
}

/**
 * A list request waits for the first connects (bounded); served while some
 * are still pending, its `_meta` says how many. Any other request, or any
 * request once every first connect is over, goes straight through.
 */
export function listAfterFirstConnects<T extends Record<string, unknown>>(first: FirstConnects, method: string, list: () => Promise<T>): Promise<T> {
  if (first.pending() === 0 || !LIST_METHODS.has(method)) return list();
  return listWhenSettled(first, list);
}

async function listWhenSettled<T extends Record<string, unknown>>(first: FirstConnects, list: () => Promise<T>): Promise<T> {
  await afterFirstConnects(first, () => (first.pending() === 0 ? true : undefined));
  const result = await list();
  const pending = first.pending();
  if (pending === 0) return result;
  const meta = (result._meta ?? {}) as Record<string, unknown>;
  return { ...result, _meta: { ...meta, [INCOMPLETE_LIST_META]: { backends_connecting: pending, retry_after_s: FIRST_CONNECT_RETRY_S } } };
}
