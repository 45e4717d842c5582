/**
 * When a backend's catalog counts may be announced: many servers register
 * tools after initialization and announce them with list_changed a moment
 * later, so counts taken at connect would say "0 tools". Counts are announced
 * once they have stayed the same for CATALOG_SETTLE_MS, and only when they
 * differ from the last announcement of the same connection.
 *
 * Decisions only, on the reconciler's clock: a catalog change only enqueues
 * the backend; each reconcile shows this the counts it sees, and records the
 * announcement (or looks again after the wait) itself.
 */

/** Quiet time after the last catalog change before its counts are announced. */
export const CATALOG_SETTLE_MS = 250;

export interface CatalogCounts {
  tools: number;
  resources: number;
  prompts: number;
}

export type CatalogVerdict = { announce: CatalogCounts } | { waitMs: number } | { done: true };

/** One connection's catalog, as the reconciler has seen it. */
export class CatalogSettle {
  private seen: string;
  private since: number;
  private announced?: string;

  /** Starts watching a new connection's catalog as it was at `now`. */
  constructor(counts: CatalogCounts, now: number) {
    this.seen = JSON.stringify(counts);
    this.since = now;
  }

  /** What to do about the counts seen at `now`: announce them, look again after `waitMs`, or nothing. */
  observe(counts: CatalogCounts, now: number): CatalogVerdict {
    const key = JSON.stringify(counts);
    if (key !== this.seen) {
      this.seen = key;
      this.since = now;
      return { waitMs: CATALOG_SETTLE_MS };
    }
    if (key === this.announced) return { done: true };
    const waitMs = this.since + CATALOG_SETTLE_MS - now;
    if (waitMs > 0) return { waitMs };
    this.announced = key;
    return { announce: counts };
  }
}

export function countsOf(catalog: { tools: unknown[]; resources: unknown[]; prompts: unknown[] }): CatalogCounts {
  return { tools: catalog.tools.length, resources: catalog.resources.length, prompts: catalog.prompts.length };
}
