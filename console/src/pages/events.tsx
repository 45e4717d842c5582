/** Every event the gateway keeps, newest first, live. */
import { useEffect } from 'preact/hooks';
import { get } from '../lib/api.js';
import { useResource } from '../lib/resource.js';
import { seedEvents } from '../lib/live.js';
import type { EventRecord } from '../lib/types.js';
import { ErrorNote } from '../components/states.js';
import { EventList } from '../components/event-list.js';

export function EventsPage() {
  const r = useResource(() => get<{ events: EventRecord[] }>('/events?limit=200'), []);
  useEffect(() => {
    if (r.data) seedEvents(r.data.events);
  }, [r.data]);
  return (
    <section>
      <h1>Events</h1>
      {r.error && <ErrorNote error={r.error} retry={r.reload} />}
      <EventList limit={200} />
    </section>
  );
}
