/** One audit record, field by field. */
import type { AuditRecord } from '../lib/types.js';
import { Badge } from './badge.js';
import { RelTime } from './time.js';

export function AuditRecordView({ record }: { record: AuditRecord }) {
  const plugins = record.metadata.plugins ?? [];
  return (
    <dl class="facts" data-testid="audit-record">
      <dt>When</dt>
      <dd>
        <RelTime iso={record.timestamp} />
      </dd>
      <dt>Outcome</dt>
      <dd>
        <Badge value={record.outcome.status} /> in {record.outcome.latency_ms.toFixed(1)} ms
        {record.outcome.error && <span class="error-text"> {record.outcome.error}</span>}
      </dd>
      <dt>Who</dt>
      <dd>
        {record.source.user_id ?? <span class="muted">no user (management token or anonymous)</span>}
        {record.source.roles && record.source.roles.length > 0 && <span class="muted"> ({record.source.roles.join(', ')})</span>}, session{' '}
        <code>{record.source.session_id}</code> from {record.source.client_ip}
      </dd>
      <dt>What</dt>
      <dd>
        <code>{record.target.method}</code> <code>{record.target.capability_name}</code> on {record.target.backend}
        {record.target.original_name !== record.target.capability_name && (
          <>
            {' '}
            (<code>{record.target.original_name}</code> there)
          </>
        )}
      </dd>
      {plugins.length > 0 && (
        <>
          <dt>Plugins</dt>
          <dd>{plugins.map((p) => `${p.plugin}: ${p.action}${p.reason ? ` (${p.reason})` : ''}`).join('; ')}</dd>
        </>
      )}
      <dt>Event id</dt>
      <dd>
        <code>{record.event_id}</code>
      </dd>
    </dl>
  );
}
