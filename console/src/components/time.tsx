/** A time shown relative ("3 min ago") with the exact time on hover and for screen readers' `datetime`. */
import { createStore, useStore } from '../lib/store.js';
import { exactTime, relativeTime } from '../lib/format.js';

const clock = createStore(Date.now());
setInterval(() => clock.set(Date.now()), 10_000);

export function RelTime({ iso }: { iso: string | null | undefined }) {
  // The clock only makes the text tick; the time itself is read now (the clock may be up to 10 s old).
  useStore(clock);
  if (!iso) return <span class="muted">never</span>;
  return (
    <time class="reltime" dateTime={iso} title={exactTime(iso)}>
      {relativeTime(iso, Date.now())}
    </time>
  );
}
