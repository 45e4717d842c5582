/** The plugin chain with its counters, and each backend's circuit under the circuit breaker. */
import { get } from '../lib/api.js';
import { useResource } from '../lib/resource.js';
import { href } from '../lib/router.js';
import type { BackendRecord, Plugins } from '../lib/types.js';
import { Badge } from '../components/badge.js';
import { Table } from '../components/table.js';
import { Empty, ErrorNote, Loading } from '../components/states.js';

async function load() {
  const [plugins, backends] = await Promise.all([get<Plugins>('/plugins'), get<{ backends: BackendRecord[] }>('/backends')]);
  return { plugins: plugins.plugins, circuits: backends.backends.filter((b) => b.circuit !== null) };
}

export function PluginsPage() {
  const r = useResource(load, [], { live: true, pollMs: 5000 });
  return (
    <section>
      <h1>Plugins</h1>
      {r.error && <ErrorNote error={r.error} retry={r.reload} />}
      {!r.data && !r.error && <Loading what="plugins" />}
      {r.data && (
        <>
          <Table
            caption="Plugins"
            rows={r.data.plugins}
            rowKey={(p) => p.name}
            empty={<Empty>No plugins are configured: calls go straight to the backends. Add some under `plugins:` (docs/plugins.md).</Empty>}
            columns={[
              { key: 'priority', label: 'Order', numeric: true, value: (p) => p.priority, render: (p) => p.priority },
              { key: 'name', label: 'Plugin', value: (p) => p.name, render: (p) => <code>{p.name}</code> },
              { key: 'enabled', label: 'Enabled', value: (p) => String(p.enabled), render: (p) => <Badge value={p.enabled ? 'enabled' : 'off'} /> },
              { key: 'mode', label: 'Mode', value: (p) => p.execution_mode, render: (p) => p.execution_mode },
              { key: 'invocations', label: 'Calls', numeric: true, value: (p) => p.counters.invocations, render: (p) => p.counters.invocations },
              { key: 'blocks', label: 'Blocks', numeric: true, value: (p) => p.counters.blocks, render: (p) => p.counters.blocks },
              { key: 'redactions', label: 'Changes', numeric: true, value: (p) => p.counters.redactions, render: (p) => p.counters.redactions },
              { key: 'cache', label: 'Cache hits', numeric: true, value: (p) => p.counters.cache_hits, render: (p) => p.counters.cache_hits },
              { key: 'retries', label: 'Retries', numeric: true, value: (p) => p.counters.retries, render: (p) => p.counters.retries },
              { key: 'errors', label: 'Errors', numeric: true, value: (p) => p.counters.errors, render: (p) => p.counters.errors },
              {
                key: 'error',
                label: 'Problem',
                value: (p) => p.error ?? '',
                render: (p) => (p.error ? <span class="error-text">{p.error}</span> : <span class="muted">—</span>),
              },
            ]}
          />
          <h2>Circuits</h2>
          <Table
            caption="Circuits"
            filterable={false}
            rows={r.data.circuits}
            rowKey={(b) => b.name}
            empty={<Empty>No circuit breaker is configured (plugin circuit_breaker).</Empty>}
            columns={[
              { key: 'backend', label: 'Backend', value: (b) => b.name, render: (b) => <a href={href('backends', b.name)}>{b.name}</a> },
              { key: 'circuit', label: 'Circuit', value: (b) => b.circuit ?? '', render: (b) => <Badge value={b.circuit} /> },
              { key: 'phase', label: 'Phase', value: (b) => b.phase, render: (b) => <Badge value={b.phase} /> },
            ]}
          />
        </>
      )}
    </section>
  );
}
