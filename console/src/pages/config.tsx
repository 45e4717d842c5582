/**
 * The running config (credentials redacted), a box to validate a changed
 * copy against it, and Reload, which first shows what the file on disk
 * would add, remove and change.
 */
import { useState } from 'preact/hooks';
import { ApiError, get, post } from '../lib/api.js';
import { useResource } from '../lib/resource.js';
import type { ConfigValidation, ReloadDryRun, ReloadResult, RunningConfig, Status } from '../lib/types.js';
import { ErrorNote, Loading } from '../components/states.js';
import { RelTime } from '../components/time.js';
import { Action } from '../components/role.js';
import { Dialog } from '../components/dialog.js';

type ChangeSet = Pick<ConfigValidation, 'backends_added' | 'backends_removed' | 'backends_changed' | 'settings_changed' | 'errors'>;

function Changes({ changes }: { changes: ChangeSet }) {
  const none = !changes.backends_added.length && !changes.backends_removed.length && !changes.backends_changed.length && !changes.settings_changed.length;
  if (changes.errors.length > 0) {
    return (
      <ul class="problems" data-testid="config-errors">
        {changes.errors.map((p, i) => (
          <li key={i}>
            {p.line !== undefined && <span class="muted">line {p.line}: </span>}
            <code>{p.path || '(file)'}</code> {p.message}
          </li>
        ))}
      </ul>
    );
  }
  if (none) return <p data-testid="changes">No change: the config is the running one.</p>;
  const list = (label: string, items: string[], cls: string) =>
    items.length > 0 && (
      <li class={cls}>
        {label}:{' '}
        {items.map((n) => (
          <code key={n}>{n}</code>
        ))}
      </li>
    );
  return (
    <ul class="changes" data-testid="changes">
      {list('Backends added', changes.backends_added, 'add')}
      {list('Backends removed', changes.backends_removed, 'del')}
      {list('Backends changed', changes.backends_changed, 'chg')}
      {list('Settings changed', changes.settings_changed, 'chg')}
    </ul>
  );
}

export function ConfigPage() {
  const r = useResource(async () => ({ config: await get<RunningConfig>('/config'), status: await get<Status>('/status') }), [], { live: true });
  const [draft, setDraft] = useState<string | undefined>(undefined);
  const [validation, setValidation] = useState<ConfigValidation | undefined>(undefined);
  const [preview, setPreview] = useState<ReloadDryRun | undefined>(undefined);
  const [result, setResult] = useState<ReloadResult | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const hotReload = r.data?.status.feature_flags.hot_reload ?? false;

  const run = async <T,>(what: string, f: () => Promise<T>, then: (v: T) => void) => {
    setBusy(what);
    setError(undefined);
    try {
      then(await f());
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <section>
      <h1>Configuration</h1>
      {r.error && <ErrorNote error={r.error} retry={r.reload} />}
      {!r.data && !r.error && <Loading what="the configuration" />}
      {r.data && (
        <>
          <p>
            <code>{r.data.config.file_path}</code>, loaded <RelTime iso={r.data.config.loaded_at} />. Values that may be credentials show as{' '}
            <code>&lt;redacted&gt;</code>.
          </p>
          <div class="actions">
            <Action
              needs="admin"
              disabled={!hotReload}
              why="Reload needs feature_flags.hot_reload: true"
              busy={busy === 'preview'}
              onClick={() => void run('preview', () => post<ReloadDryRun>('/reload', { dry_run: true }), setPreview)}
            >
              Reload from file…
            </Action>
            <Action needs="viewer" onClick={() => setDraft(draft === undefined ? r.data!.config.yaml : undefined)}>
              {draft === undefined ? 'Validate a change…' : 'Close the editor'}
            </Action>
          </div>
          {error && <ErrorNote error={error} />}
          {result && (
            <p class={result.reloaded ? 'note note-good' : 'note note-bad'} role="status" data-testid="reload-result">
              {result.reloaded
                ? `Reloaded: ${result.backends_added.length} added, ${result.backends_removed.length} removed, ${result.backends_changed.length} changed.`
                : `Not reloaded: ${result.errors.map((e) => `${e.path} ${e.message}`).join('; ')}`}
            </p>
          )}
          {draft !== undefined && (
            <form
              class="config-edit"
              onSubmit={(e) => {
                e.preventDefault();
                void run('validate', () => post<ConfigValidation>('/config/validate', { yaml: draft }), setValidation);
              }}
            >
              <div class="field">
                <label for="config-draft">Config to validate (nothing is saved or applied)</label>
                <textarea id="config-draft" class="mono" rows={20} spellcheck={false} value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
              </div>
              <button type="submit" class="primary" disabled={busy === 'validate'}>
                Validate
              </button>
              {validation && (
                <div class="card" role="status">
                  <h2>{validation.valid ? 'Valid. Against the running config:' : 'Not valid:'}</h2>
                  <Changes changes={validation} />
                </div>
              )}
            </form>
          )}
          <h2>Running config</h2>
          <pre class="code config" tabIndex={0} aria-label="Running config" data-testid="config-yaml">
            {r.data.config.yaml}
          </pre>
        </>
      )}
      <Dialog title="Reload the config file?" open={preview !== undefined} onClose={() => setPreview(undefined)}>
        {preview && (
          <>
            <p>{preview.valid ? 'The file on disk, against the running config:' : 'The file on disk would not load; the running config would stay:'}</p>
            <Changes changes={preview} />
            <div class="dialog-actions">
              <button
                type="button"
                class="primary"
                disabled={!preview.valid || busy === 'reload'}
                onClick={() =>
                  void run(
                    'reload',
                    () => post<ReloadResult>('/reload'),
                    (v) => {
                      setResult(v);
                      setPreview(undefined);
                      r.reload();
                    },
                  )
                }
              >
                {busy === 'reload' ? 'Reloading…' : 'Reload now'}
              </button>
              <button type="button" onClick={() => setPreview(undefined)}>
                Cancel
              </button>
            </div>
          </>
        )}
      </Dialog>
    </section>
  );
}
