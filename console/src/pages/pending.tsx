/**
 * Tool and prompt definitions that wait for approval (docs/tool-pinning.md):
 * why, since when, what the suspicious-text check found, the diff against
 * the pinned definition, and Approve (for operators) with the exact hash read.
 */
import { useState } from 'preact/hooks';
import { ApiError, get, post } from '../lib/api.js';
import { useResource } from '../lib/resource.js';
import { href } from '../lib/router.js';
import type { PendingPrompt, PendingTool } from '../lib/types.js';
import { Badge } from '../components/badge.js';
import { Empty, ErrorNote, Loading } from '../components/states.js';
import { RelTime } from '../components/time.js';
import { Action } from '../components/role.js';
import { Diff } from '../components/code.js';
import { Dialog } from '../components/dialog.js';

type Entry = (PendingTool & { kind: 'tool' }) | (PendingPrompt & { kind: 'prompt' });

async function load(): Promise<Entry[]> {
  const [tools, prompts] = await Promise.all([get<{ pending: PendingTool[] }>('/tools/pending'), get<{ pending: PendingPrompt[] }>('/prompts/pending')]);
  return [...tools.pending.map((t) => ({ ...t, kind: 'tool' as const })), ...prompts.pending.map((p) => ({ ...p, kind: 'prompt' as const }))];
}

export function PendingPage() {
  const r = useResource(load, [], { live: true });
  const [confirm, setConfirm] = useState<Entry | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | undefined>(undefined);

  const approve = async (e: Entry) => {
    setBusy(true);
    try {
      await post(`/${e.kind}s/${encodeURIComponent(e.name)}/approve`, { hash: e.hash });
      setOutcome({ ok: true, text: `Approved ${e.kind} ${e.name}: clients get it again.` });
      setConfirm(undefined);
      r.reload();
    } catch (err) {
      setOutcome({ ok: false, text: (err as ApiError).message });
      setConfirm(undefined);
      r.reload();
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <h1>Pending definitions</h1>
      {outcome && (
        <p class={outcome.ok ? 'note note-good' : 'note note-bad'} role="status">
          {outcome.text}
        </p>
      )}
      {r.error && <ErrorNote error={r.error} retry={r.reload} />}
      {!r.data && !r.error && <Loading what="pending definitions" />}
      {r.data && r.data.length === 0 && (
        <Empty>Nothing waits for approval. A tool or prompt whose definition changes (or looks suspicious) appears here.</Empty>
      )}
      {r.data?.map((e) => (
        <article class="pending card" key={`${e.kind}/${e.name}/${e.hash}`} data-testid="pending">
          <h2>
            {e.kind} <code>{e.name}</code> <Badge value={e.reason} />{' '}
            {e.quarantined ? <Badge value="quarantined" /> : <Badge value="pending" label="still served" />}
          </h2>
          <p>
            From <a href={href('backends', e.backend)}>{e.backend}</a> (<code>{e.kind === 'tool' ? e.tool : e.prompt}</code> there), waiting since{' '}
            <RelTime iso={e.since} />.
          </p>
          {e.findings.length > 0 && (
            <ul class="findings">
              {e.findings.map((f, i) => (
                <li key={i}>
                  <Badge value="suspicious" label={f.kind} /> in <code>{f.field}</code>: {f.detail}
                </li>
              ))}
            </ul>
          )}
          {e.diff.description.before !== e.diff.description.after && (
            <div class="text-change">
              <h3>Description</h3>
              <p>
                <span class="muted">Before:</span> {e.diff.description.before ?? <em>none</em>}
              </p>
              <p>
                <span class="muted">Now:</span> {e.diff.description.after ?? <em>none</em>}
              </p>
            </div>
          )}
          <h3>{e.kind === 'tool' ? 'Input schema' : 'Arguments'}</h3>
          <Diff text={e.kind === 'tool' ? e.diff.input_schema : e.diff.arguments} label={`Diff of ${e.name}`} />
          {e.kind === 'tool' && e.diff.output_schema && (
            <>
              <h3>Output schema</h3>
              <Diff text={e.diff.output_schema} label={`Output schema diff of ${e.name}`} />
            </>
          )}
          <Action needs="operator" onClick={() => setConfirm(e)} kind="primary">
            Approve…
          </Action>
        </article>
      ))}
      <Dialog title={confirm ? `Approve ${confirm.kind} ${confirm.name}?` : 'Approve'} open={confirm !== undefined} onClose={() => setConfirm(undefined)}>
        {confirm && (
          <>
            <p>
              The definition shown (hash <code>{confirm.hash.slice(0, 16)}…</code>) is pinned and served to clients again. If it changed since you read it, the
              gateway refuses.
            </p>
            <div class="dialog-actions">
              <button type="button" class="primary" disabled={busy} onClick={() => void approve(confirm)}>
                {busy ? 'Approving…' : 'Approve'}
              </button>
              <button type="button" onClick={() => setConfirm(undefined)}>
                Cancel
              </button>
            </div>
          </>
        )}
      </Dialog>
    </section>
  );
}
