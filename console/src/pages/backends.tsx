/** Every backend: phase, connection, health, what it serves, its container and circuit. */
import { get } from '../lib/api.js';
import { useResource } from '../lib/resource.js';
import { href } from '../lib/router.js';
import type { BackendRecord } from '../lib/types.js';
import { Badge } from '../components/badge.js';
import { Table, type Column } from '../components/table.js';
import { Empty, ErrorNote, Loading } from '../components/states.js';
import { RelTime } from '../components/time.js';

const PHASE_ORDER = ['Failed', 'Degraded', 'Initializing', 'Pending', 'ShuttingDown', 'Ready'];

const columns: Column<BackendRecord>[] = [
  { key: 'name', label: 'Name', value: (b) => b.name, render: (b) => <a href={href('backends', b.name)}>{b.name}</a> },
  { key: 'phase', label: 'Phase', value: (b) => PHASE_ORDER.indexOf(b.phase), render: (b) => <Badge value={b.phase} /> },
  { key: 'state', label: 'Connection', value: (b) => b.state, render: (b) => b.state },
  { key: 'type', label: 'Type', value: (b) => b.type, render: (b) => b.type },
  { key: 'group', label: 'Group', value: (b) => b.group, render: (b) => b.group },
  {
    key: 'health',
    label: 'Health',
    value: (b) => b.health.status,
    render: (b) => (
      <>
        <Badge value={b.health.status} /> {b.health.latency_ms !== null && <span class="muted">{Math.round(b.health.latency_ms)} ms</span>}
      </>
    ),
  },
  { key: 'tools', label: 'Tools', numeric: true, value: (b) => b.capabilities.tools, render: (b) => b.capabilities.tools },
  {
    key: 'quarantined',
    label: 'Held',
    numeric: true,
    value: (b) => b.quarantined_tools,
    render: (b) => (b.quarantined_tools ? <Badge value="quarantined" label={String(b.quarantined_tools)} /> : 0),
  },
  { key: 'circuit', label: 'Circuit', value: (b) => b.circuit ?? '', render: (b) => (b.circuit ? <Badge value={b.circuit} /> : <span class="muted">—</span>) },
  {
    key: 'revision',
    label: 'Revision',
    value: (b) => b.revision ?? '',
    render: (b) => (b.revision ? <code>{b.revision}</code> : <span class="muted">—</span>),
  },
  {
    key: 'container',
    label: 'Container',
    value: (b) => b.container?.image ?? '',
    render: (b) => (b.container ? <code title={b.container.id}>{b.container.image}</code> : <span class="muted">—</span>),
  },
  { key: 'checked', label: 'Last check', value: (b) => b.health.last_check ?? '', render: (b) => <RelTime iso={b.health.last_check} /> },
  {
    key: 'error',
    label: 'Last error',
    value: (b) => b.error ?? '',
    render: (b) => (b.error ? <span class="error-text">{b.error}</span> : <span class="muted">—</span>),
  },
];

export function Backends() {
  const r = useResource(() => get<{ backends: BackendRecord[] }>('/backends'), [], { live: true, pollMs: 15_000 });
  return (
    <section>
      <h1>Backends</h1>
      {r.error && <ErrorNote error={r.error} retry={r.reload} />}
      {!r.data ? (
        !r.error && <Loading what="backends" />
      ) : (
        <Table
          caption="Backends"
          columns={columns}
          rows={r.data.backends}
          rowKey={(b) => b.name}
          empty={<Empty>No backends are configured. Add one under `backends:` in the config file, then reload (Configuration page).</Empty>}
        />
      )}
    </section>
  );
}
