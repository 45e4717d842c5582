/**
 * What the gateway serves: tools, prompts and resources, searchable and
 * filterable by backend and by standing. Tools hidden from clients
 * (filtered, shadowed by another backend, a bad name) or held back for
 * approval are marked as such, never as callable.
 */
import { useState } from 'preact/hooks';
import { get } from '../lib/api.js';
import { useResource } from '../lib/resource.js';
import { href, useRoute } from '../lib/router.js';
import type { Capabilities as Caps, ToolInfo } from '../lib/types.js';
import { Badge } from '../components/badge.js';
import { Table } from '../components/table.js';
import { Empty, ErrorNote, Loading } from '../components/states.js';

type Kind = 'tools' | 'prompts' | 'resources';

/** Why clients cannot call a tool, or undefined when they can. */
export function notCallable(t: ToolInfo): string | undefined {
  if (t.filtered) return 'filtered out by the backend’s filters';
  if (t.hidden_by) return `hidden: ${t.hidden_by} keeps the same name`;
  if (t.name_error) return `hidden: ${t.name_error}`;
  if (t.quarantined) return `quarantined until an operator approves its ${t.pending ?? 'changed'} definition`;
  return undefined;
}

export function Standing({ tool }: { tool: ToolInfo }) {
  if (tool.filtered) return <Badge value="filtered" />;
  if (tool.hidden_by || tool.name_error) return <Badge value="hidden" />;
  if (tool.quarantined) return <Badge value="quarantined" />;
  if (tool.pending) return <Badge value="pending" label={`callable, ${tool.pending}`} />;
  return <Badge value="ok" label="callable" />;
}

const STANDINGS = {
  all: () => true,
  callable: (t: ToolInfo) => notCallable(t) === undefined,
  hidden: (t: ToolInfo) => Boolean(t.filtered || t.hidden_by || t.name_error),
  held: (t: ToolInfo) => Boolean(t.pending || t.quarantined),
};

export function Capabilities() {
  const { params } = useRoute();
  const [kind, setKind] = useState<Kind>((params.get('kind') as Kind | null) ?? 'tools');
  const [backend, setBackend] = useState(params.get('backend') ?? '');
  const [standing, setStanding] = useState<keyof typeof STANDINGS>('all');
  const r = useResource(() => get<Caps>('/capabilities'), [], { live: true });
  const caps = r.data;
  const backends = caps ? [...new Set([...caps.tools, ...caps.prompts, ...caps.resources].map((c) => c.backend))].sort() : [];
  const of = <T extends { backend: string }>(rows: T[]) => rows.filter((x) => !backend || x.backend === backend);

  return (
    <section>
      <h1>Tools, prompts and resources</h1>
      <div class="tabs" role="tablist" aria-label="Kind">
        {(['tools', 'prompts', 'resources'] as const).map((k) => (
          <button key={k} type="button" role="tab" aria-selected={kind === k} onClick={() => setKind(k)}>
            {k[0]!.toUpperCase() + k.slice(1)} {caps && <span class="count">{of(caps[k] as Array<{ backend: string }>).length}</span>}
          </button>
        ))}
      </div>
      <div class="filters">
        <label>
          <span>Backend</span>
          <select value={backend} onChange={(e) => setBackend(e.currentTarget.value)}>
            <option value="">All backends</option>
            {backends.map((b) => (
              <option key={b} value={b}>
                {b}
              </option>
            ))}
          </select>
        </label>
        {kind === 'tools' && (
          <label>
            <span>Standing</span>
            <select value={standing} onChange={(e) => setStanding(e.currentTarget.value as keyof typeof STANDINGS)}>
              <option value="all">All</option>
              <option value="callable">Callable by clients</option>
              <option value="hidden">Hidden from clients</option>
              <option value="held">Pending or quarantined</option>
            </select>
          </label>
        )}
      </div>
      {r.error && <ErrorNote error={r.error} retry={r.reload} />}
      {!caps && !r.error && <Loading what="capabilities" />}
      {caps && kind === 'tools' && (
        <Table
          caption="Tools"
          rows={of(caps.tools).filter(STANDINGS[standing])}
          rowKey={(t) => `${t.backend}/${t.original_name}/${t.name}`}
          rowClass={(t) => (notCallable(t) ? 'not-callable' : undefined)}
          empty={<Empty>No tools here. Connected backends’ tools appear as they connect; check the Backends page for failures.</Empty>}
          initialSort={{ key: 'name', dir: 'asc' }}
          columns={[
            { key: 'name', label: 'Name', value: (t) => t.name, render: (t) => <a href={href('tools', t.name)}>{t.name}</a> },
            { key: 'standing', label: 'Standing', value: (t) => notCallable(t) ?? 'callable', render: (t) => <Standing tool={t} /> },
            { key: 'backend', label: 'Backend', value: (t) => t.backend, render: (t) => t.backend },
            {
              key: 'original',
              label: 'Name at backend',
              value: (t) => t.original_name,
              render: (t) => (t.renamed ? <code>{t.original_name}</code> : <span class="muted">same</span>),
            },
            { key: 'description', label: 'Description', value: (t) => t.description, render: (t) => <span class="clamp">{t.description}</span> },
          ]}
        />
      )}
      {caps && kind === 'prompts' && (
        <Table
          caption="Prompts"
          rows={of(caps.prompts)}
          rowKey={(p) => p.name}
          empty={<Empty>No prompts are served. Backends that offer prompts list them here once connected.</Empty>}
          initialSort={{ key: 'name', dir: 'asc' }}
          columns={[
            { key: 'name', label: 'Name', value: (p) => p.name, render: (p) => <code>{p.name}</code> },
            { key: 'backend', label: 'Backend', value: (p) => p.backend, render: (p) => p.backend },
            {
              key: 'arguments',
              label: 'Arguments',
              value: (p) => p.arguments.length,
              render: (p) => p.arguments.map((a) => String(a.name)).join(', ') || <span class="muted">none</span>,
            },
            { key: 'description', label: 'Description', value: (p) => p.description, render: (p) => <span class="clamp">{p.description}</span> },
          ]}
        />
      )}
      {caps && kind === 'resources' && (
        <Table
          caption="Resources"
          rows={of(caps.resources)}
          rowKey={(x) => x.uri}
          empty={<Empty>No resources are served. Backends that offer resources list them here once connected.</Empty>}
          initialSort={{ key: 'uri', dir: 'asc' }}
          columns={[
            { key: 'uri', label: 'URI', value: (x) => x.uri, render: (x) => <code>{x.uri}</code> },
            { key: 'name', label: 'Name', value: (x) => x.name, render: (x) => x.name },
            { key: 'backend', label: 'Backend', value: (x) => x.backend, render: (x) => x.backend },
            { key: 'mime', label: 'Type', value: (x) => x.mime_type, render: (x) => x.mime_type || <span class="muted">—</span> },
          ]}
        />
      )}
    </section>
  );
}
