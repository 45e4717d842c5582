/** The audit trail, filtered by user, tool, outcome and time; each record opens to its details. */
import { useState } from 'preact/hooks';
import { get, query } from '../lib/api.js';
import { useResource } from '../lib/resource.js';
import { shortId } from '../lib/format.js';
import type { Audit, AuditRecord } from '../lib/types.js';
import { Badge } from '../components/badge.js';
import { Table } from '../components/table.js';
import { Empty, ErrorNote, Loading } from '../components/states.js';
import { RelTime } from '../components/time.js';
import { AuditRecordView } from '../components/audit-record.js';
import { Dialog } from '../components/dialog.js';

interface Filters {
  user: string;
  tool: string;
  outcome: string;
  since: string;
  until: string;
  limit: string;
}

const EMPTY: Filters = { user: '', tool: '', outcome: '', since: '', until: '', limit: '200' };
/** `datetime-local` is local time without a zone; the API wants ISO 8601. */
const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function AuditPage() {
  const [form, setForm] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const [open, setOpen] = useState<AuditRecord | undefined>(undefined);
  const r = useResource(
    () =>
      get<Audit>(
        `/audit${query({ user: applied.user, tool: applied.tool, outcome: applied.outcome, since: iso(applied.since), until: iso(applied.until), limit: applied.limit })}`,
      ),
    [applied],
    { pollMs: 10_000 },
  );
  const field = (key: keyof Filters, label: string, type: 'text' | 'datetime-local' = 'text') => (
    <div class="field">
      <label for={`audit-${key}`}>{label}</label>
      {type === 'text' ? (
        <input id={`audit-${key}`} type="text" value={form[key]} onInput={(e) => setForm({ ...form, [key]: e.currentTarget.value })} />
      ) : (
        <input id={`audit-${key}`} type="datetime-local" value={form[key]} onInput={(e) => setForm({ ...form, [key]: e.currentTarget.value })} />
      )}
    </div>
  );
  return (
    <section>
      <h1>Audit trail</h1>
      <form
        class="row-form"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(form);
        }}
      >
        {field('user', 'User')}
        {field('tool', 'Tool (exposed name)')}
        <div class="field">
          <label for="audit-outcome">Outcome</label>
          <select id="audit-outcome" value={form.outcome} onChange={(e) => setForm({ ...form, outcome: e.currentTarget.value })}>
            <option value="">Any</option>
            <option value="success">success</option>
            <option value="error">error</option>
            <option value="denied">denied</option>
          </select>
        </div>
        {field('since', 'After', 'datetime-local')}
        {field('until', 'Until', 'datetime-local')}
        <div class="field">
          <label for="audit-limit">At most</label>
          <select id="audit-limit" value={form.limit} onChange={(e) => setForm({ ...form, limit: e.currentTarget.value })}>
            {['50', '200', '1000'].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="primary">
          Apply
        </button>
        <button
          type="button"
          onClick={() => {
            setForm(EMPTY);
            setApplied(EMPTY);
          }}
        >
          Clear
        </button>
      </form>
      {r.error && <ErrorNote error={r.error} retry={r.reload} />}
      {!r.data && !r.error && <Loading what="audit records" />}
      {r.data && !r.data.complete && <p class="note">Only the newest part of a large trail was searched: narrow the time range to look further back.</p>}
      {r.data && (
        <Table
          caption="Audit records"
          rows={[...r.data.records].reverse()}
          rowKey={(a) => a.event_id}
          empty={<Empty>No audit records match. Calls, reads and prompt gets through the gateway are recorded here (audit.enabled).</Empty>}
          columns={[
            { key: 'time', label: 'When', value: (a) => a.timestamp, render: (a) => <RelTime iso={a.timestamp} /> },
            { key: 'user', label: 'User', value: (a) => a.source.user_id ?? '', render: (a) => a.source.user_id ?? <span class="muted">—</span> },
            { key: 'method', label: 'Operation', value: (a) => a.target.method, render: (a) => <code>{a.target.method}</code> },
            { key: 'tool', label: 'Name', value: (a) => a.target.capability_name, render: (a) => <code>{a.target.capability_name}</code> },
            { key: 'backend', label: 'Backend', value: (a) => a.target.backend, render: (a) => a.target.backend },
            { key: 'outcome', label: 'Outcome', value: (a) => a.outcome.status, render: (a) => <Badge value={a.outcome.status} /> },
            { key: 'latency', label: 'ms', numeric: true, value: (a) => a.outcome.latency_ms, render: (a) => a.outcome.latency_ms.toFixed(1) },
            {
              key: 'session',
              label: 'Session',
              value: (a) => a.source.session_id,
              render: (a) => <code title={a.source.session_id}>{shortId(a.source.session_id)}</code>,
            },
            {
              key: 'details',
              label: 'Details',
              render: (a) => (
                <button type="button" onClick={() => setOpen(a)} aria-label={`Open details of ${a.target.capability_name} at ${a.timestamp}`}>
                  Open
                </button>
              ),
            },
          ]}
        />
      )}
      <Dialog title="Audit record" open={open !== undefined} onClose={() => setOpen(undefined)}>
        {open && (
          <>
            <AuditRecordView record={open} />
            <div class="dialog-actions">
              <button type="button" onClick={() => setOpen(undefined)}>
                Close
              </button>
            </div>
          </>
        )}
      </Dialog>
    </section>
  );
}
