/** The gateway at a glance: health, backends, what it serves, sessions, what waits for approval, and the newest events. */
import { useEffect } from 'preact/hooks';
import { get } from '../lib/api.js';
import { useResource } from '../lib/resource.js';
import { seedEvents } from '../lib/live.js';
import { duration, plural } from '../lib/format.js';
import { href } from '../lib/router.js';
import type { Batch, Health, PendingPrompt, PendingTool, Sessions } from '../lib/types.js';
import { Badge } from '../components/badge.js';
import { ErrorNote, Loading } from '../components/states.js';
import { EventList } from '../components/event-list.js';

interface OverviewData {
  batch: Batch;
  health: Health;
  sessions: Sessions;
  pending: number;
}

async function load(): Promise<OverviewData> {
  const [batch, health, sessions, tools, prompts] = await Promise.all([
    get<Batch>('/batch?events_limit=50'),
    get<Health>('/health'),
    get<Sessions>('/sessions'),
    get<{ pending: PendingTool[] }>('/tools/pending'),
    get<{ pending: PendingPrompt[] }>('/prompts/pending'),
  ]);
  return { batch, health, sessions, pending: tools.pending.length + prompts.pending.length };
}

export function Overview() {
  const r = useResource(load, [], { live: true, pollMs: 15_000 });
  useEffect(() => {
    if (r.data) seedEvents(r.data.batch.events.events);
  }, [r.data]);
  useEffect(() => {
    if (r.data) performance.mark('console-first-data');
  }, [r.data !== undefined]);
  return (
    <section>
      <h1>Overview</h1>
      {r.error && <ErrorNote error={r.error} retry={r.reload} />}
      {!r.data ? !r.error && <Loading what="the gateway's state" /> : <OverviewCards d={r.data} />}
      <h2>Newest events</h2>
      <EventList />
    </section>
  );
}

function OverviewCards({ d }: { d: OverviewData }) {
  const { status, backends, capabilities } = d.batch;
  const records = backends.backends;
  const failing = records.filter((b) => b.phase === 'Failed' || b.phase === 'Degraded');
  const tools = capabilities.tools.filter((t) => !t.filtered && !t.hidden_by && !t.name_error && !t.quarantined).length;
  return (
    <div class="cards" data-testid="overview">
      <article class="card">
        <h2>Health</h2>
        <p class="big">
          <Badge value={d.health.status} />
        </p>
        <p>
          {status.service.name} {status.service.version}, {status.service.state}, up {duration(status.service.uptime_seconds)}
        </p>
      </article>
      <article class="card">
        <h2>
          <a href={href('backends')}>Backends</a>
        </h2>
        <p class="big">
          {d.health.backends.connected} / {d.health.backends.total} connected
        </p>
        <p>
          {d.health.backends.healthy} healthy
          {failing.length > 0 && (
            <>
              , {failing.length} failing or degraded: {failing.map((b) => b.name).join(', ')}
            </>
          )}
        </p>
      </article>
      <article class="card">
        <h2>
          <a href={href('capabilities')}>Served</a>
        </h2>
        <p class="big">{plural(tools, 'tool')}</p>
        <p>
          {plural(capabilities.prompts.length, 'prompt')}, {plural(capabilities.resources.length, 'resource')}
        </p>
      </article>
      <article class="card">
        <h2>
          <a href={href('sessions')}>Sessions</a>
        </h2>
        <p class="big">{d.sessions.active_sessions} active</p>
        <p>
          replica {status.replica.id}, store {status.replica.sessions_store.type} <Badge value={status.replica.sessions_store.status} />
        </p>
      </article>
      <article class="card">
        <h2>
          <a href={href('pending')}>Pending definitions</a>
        </h2>
        <p class="big">{d.pending}</p>
        <p>{d.pending === 0 ? 'Nothing waits for approval.' : 'Definitions wait for an operator to approve them.'}</p>
      </article>
      <article class="card">
        <h2>Features</h2>
        <ul class="flags">
          {Object.entries(status.feature_flags).map(([k, v]) => (
            <li key={k}>
              {k.replace(/_/g, ' ')}: <Badge value={v ? 'on' : 'off'} />
            </li>
          ))}
        </ul>
      </article>
    </div>
  );
}
