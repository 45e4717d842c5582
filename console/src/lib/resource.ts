/**
 * Data a page shows: fetched when it opens, again when live events arrive
 * (liveTick) or on a timer for counters no event announces, and again on
 * demand. The last answer stays on screen while the next is fetched, so
 * nothing blanks or jumps; an error is shown beside the last good data.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { liveTick } from './live.js';
import { useStore } from './store.js';
import type { ApiError } from './api.js';

export interface Resource<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload(): void;
}

export function useResource<T>(fetcher: () => Promise<T>, deps: unknown[], opts: { live?: boolean; pollMs?: number } = {}): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const tick = useStore(liveTick);
  const seq = useRef(0);
  const [manual, setManual] = useState(0);

  useEffect(() => {
    const mine = ++seq.current;
    setLoading(true);
    fetcher().then(
      (value) => {
        if (mine !== seq.current) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (err: ApiError) => {
        if (mine !== seq.current) return;
        setError(err);
        setLoading(false);
      },
    );
  }, [...deps, opts.live ? tick : 0, manual]);

  useEffect(() => {
    if (!opts.pollMs) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') setManual((n) => n + 1);
    }, opts.pollMs);
    return () => clearInterval(timer);
  }, [opts.pollMs]);

  const reload = useCallback(() => setManual((n) => n + 1), []);
  return { data, error, loading, reload };
}
