/**
 * The gateway's events as they come, newest first, in a box of fixed
 * height. While the pointer or the keyboard focus is in the box, new events
 * wait above it behind a button, so the line being read does not move.
 */
import { useState } from 'preact/hooks';
import { liveEvents } from '../lib/live.js';
import { useStore } from '../lib/store.js';
import { href } from '../lib/router.js';
import type { EventRecord } from '../lib/types.js';
import { Badge } from './badge.js';
import { RelTime } from './time.js';
import { Empty } from './states.js';

export function EventList({ backend, limit = 50 }: { backend?: string; limit?: number }) {
  const all = useStore(liveEvents);
  const [held, setHeld] = useState<EventRecord[] | undefined>(undefined);
  const mine = all.filter((e) => backend === undefined || e.backend === backend);
  const shown = (held ?? mine).slice(0, limit);
  const waiting = held ? mine.length - held.length : 0;
  const hold = () => setHeld((h) => h ?? mine);
  const release = () => setHeld(undefined);
  return (
    <div class="events-block">
      <p class="events-waiting" aria-live="polite">
        {waiting > 0 ? (
          <button type="button" onClick={release}>
            Show {waiting} new event{waiting === 1 ? '' : 's'}
          </button>
        ) : (
          <span class="muted">{shown.length === 0 ? '' : 'Newest first. New events appear as they happen.'}</span>
        )}
      </p>
      {shown.length === 0 ? (
        <Empty>No events yet{backend ? ` for ${backend}` : ''}. They appear here as the gateway connects backends, reloads and acts.</Empty>
      ) : (
        <ol
          class="events"
          data-testid="events"
          onMouseEnter={hold}
          onMouseLeave={release}
          onFocusIn={hold}
          onFocusOut={release}
          tabIndex={0}
          aria-label="Events"
        >
          {shown.map((e) => (
            <li key={e.id} class={`event sev-${e.severity}`}>
              <RelTime iso={e.timestamp} /> <Badge value={e.severity} /> <code>{e.stage}</code>{' '}
              {e.backend && (
                <a href={href('backends', e.backend)} class="event-backend">
                  {e.backend}
                </a>
              )}{' '}
              <span class="event-message">{e.message}</span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
