/** One backend: its conditions with their transition times, container, health, stderr, events, and reconnect / re-authenticate. */
import { useState } from 'preact/hooks';
import { ApiError, get, post, query } from '../lib/api.js';
import { useResource } from '../lib/resource.js';
import { href } from '../lib/router.js';
import type { BackendRecord, Stderr } from '../lib/types.js';
import { Badge } from '../components/badge.js';
import { Table } from '../components/table.js';
import { Empty, ErrorNote, Loading } from '../components/states.js';
import { RelTime } from '../components/time.js';
import { Action } from '../components/role.js';
import { EventList } from '../components/event-list.js';

type Outcome = { ok: boolean; text: string; url?: string | null };

export function BackendPage({ name }: { name: string }) {
  const r = useResource(() => get<{ backends: BackendRecord[] }>('/backends'), [name], { live: true, pollMs: 15_000 });
  const stderr = useResource(() => get<Stderr>(`/backends/${encodeURIComponent(name)}/stderr${query({ limit: 50 })}`), [name], { live: true, pollMs: 5000 });
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);
  const b = r.data?.backends.find((x) => x.name === name);

  const act = async (what: 'reconnect' | 'reauth') => {
    setBusy(what);
    setOutcome(undefined);
    try {
      if (what === 'reconnect') {
        const res = await post<{ reconnected: boolean; error: string | null }>(`/reconnect/${encodeURIComponent(name)}`);
        setOutcome(res.reconnected ? { ok: true, text: 'Reconnected.' } : { ok: false, text: `Reconnect failed: ${res.error ?? 'no reason given'}` });
      } else {
        const res = await post<{ reauth_initiated: boolean; error: string | null; authorization_url: string | null }>(`/reauth/${encodeURIComponent(name)}`);
        setOutcome(
          res.reauth_initiated
            ? {
                ok: true,
                text: res.authorization_url ? 'Sign-in started: open the link to authorize the gateway.' : 'A new token was fetched.',
                url: res.authorization_url,
              }
            : { ok: false, text: `Re-authentication did not start: ${res.error ?? 'no reason given'}` },
        );
      }
      r.reload();
    } catch (err) {
      setOutcome({ ok: false, text: (err as ApiError).message });
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <section>
      <p class="crumbs">
        <a href={href('backends')}>Backends</a> /
      </p>
      <h1>
        {name} {b && <Badge value={b.phase} />}
      </h1>
      {r.error && <ErrorNote error={r.error} retry={r.reload} />}
      {!r.data && !r.error && <Loading what="the backend" />}
      {r.data && !b && <Empty>There is no backend “{name}” in the running config. It may have been removed by a reload.</Empty>}
      {b && (
        <>
          <div class="actions">
            <Action needs="operator" onClick={() => void act('reconnect')} busy={busy === 'reconnect'}>
              Reconnect
            </Action>
            <Action needs="operator" onClick={() => void act('reauth')} busy={busy === 'reauth'} disabled={b.type === 'stdio'} why="Only HTTP backends sign in">
              Re-authenticate
            </Action>
          </div>
          {outcome && (
            <p class={outcome.ok ? 'note note-good' : 'note note-bad'} role="status">
              {outcome.text}{' '}
              {outcome.url && (
                <a href={outcome.url} target="_blank" rel="noreferrer noopener">
                  Authorize
                </a>
              )}
            </p>
          )}
          <dl class="facts">
            <dt>Type</dt>
            <dd>{b.type}</dd>
            <dt>Group</dt>
            <dd>{b.group}</dd>
            <dt>Connection</dt>
            <dd>{b.state}</dd>
            <dt>Health</dt>
            <dd>
              <Badge value={b.health.status} /> {b.health.latency_ms !== null && `${Math.round(b.health.latency_ms)} ms`}, checked{' '}
              <RelTime iso={b.health.last_check} />
            </dd>
            <dt>Serves</dt>
            <dd>
              <a href={`${href('capabilities')}?backend=${encodeURIComponent(name)}`}>
                {b.capabilities.tools} tools, {b.capabilities.prompts} prompts, {b.capabilities.resources} resources
              </a>
              {b.quarantined_tools > 0 && (
                <>
                  {' '}
                  (<a href={href('pending')}>{b.quarantined_tools} held for approval</a>)
                </>
              )}
            </dd>
            <dt>Revision</dt>
            <dd>{b.revision ? <code>{b.revision}</code> : <span class="muted">not reported</span>}</dd>
            <dt>Container</dt>
            <dd>
              {b.container ? (
                <>
                  <code>{b.container.image}</code> on {b.container.runtime}, id <code>{b.container.id.slice(0, 12)}</code>
                </>
              ) : (
                <span class="muted">none (a bare process or an HTTP backend)</span>
              )}
            </dd>
            <dt>Circuit</dt>
            <dd>{b.circuit ? <Badge value={b.circuit} /> : <span class="muted">no circuit breaker</span>}</dd>
            <dt>Last error</dt>
            <dd>{b.error ? <span class="error-text">{b.error}</span> : <span class="muted">none</span>}</dd>
            {Object.keys(b.labels).length > 0 && (
              <>
                <dt>Labels</dt>
                <dd>
                  {Object.entries(b.labels).map(([k, v]) => (
                    <code key={k} class="label">
                      {k}={v}
                    </code>
                  ))}
                </dd>
              </>
            )}
          </dl>
          <h2>Conditions</h2>
          <Table
            caption="Conditions"
            filterable={false}
            columns={[
              { key: 'type', label: 'Type', value: (c) => c.type, render: (c) => c.type },
              { key: 'status', label: 'Status', value: (c) => String(c.status), render: (c) => <Badge value={c.status} /> },
              { key: 'reason', label: 'Reason', value: (c) => c.reason, render: (c) => <code>{c.reason}</code> },
              { key: 'message', label: 'Message', render: (c) => c.message },
              { key: 'since', label: 'Since', value: (c) => c.last_transition, render: (c) => <RelTime iso={c.last_transition} /> },
            ]}
            rows={b.conditions}
            rowKey={(c) => c.type}
            empty={<Empty>No conditions recorded yet.</Empty>}
          />
          <h2>Last stderr lines</h2>
          {stderr.error && <ErrorNote error={stderr.error} retry={stderr.reload} />}
          {stderr.data &&
            (stderr.data.lines.length === 0 ? (
              <Empty>Nothing written to stderr{b.type === 'stdio' ? ' yet' : ': only stdio backends have one'}.</Empty>
            ) : (
              <pre class="code stderr" tabIndex={0} aria-label="stderr" data-testid="stderr">
                {stderr.data.lines.map((l, i) => (
                  <span key={i}>
                    <span class="muted" title={l.at}>
                      {l.at.slice(11, 19)}
                    </span>{' '}
                    {l.text}
                    {'\n'}
                  </span>
                ))}
              </pre>
            ))}
          <h2>Events</h2>
          <EventList backend={name} limit={30} />
        </>
      )}
    </section>
  );
}
