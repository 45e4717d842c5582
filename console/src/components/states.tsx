/** What a page shows while it waits, when there is nothing, and when something failed: always with what to do. */
import type { ComponentChildren } from 'preact';
import type { ApiError } from '../lib/api.js';

export function Loading({ what }: { what: string }) {
  return (
    <p class="state state-loading" role="status">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="state state-empty">{children}</div>;
}

/** Why a request failed, and what a person can do about it. */
export function advice(err: ApiError): string {
  if (err.status === 0) return 'Check that the gateway is running; this page keeps trying.';
  if (err.status === 401) return 'Your sign-in has ended: sign in again.';
  if (err.code === 'insufficient_role') return 'Ask an administrator for a role that allows it (server.management.roles).';
  if (err.status === 403) return 'The gateway refused the request; reload the page and try again.';
  if (err.status === 404) return 'It is no longer there: it may have been removed by a reload.';
  if (err.status === 409) return 'Something changed meanwhile: look again, then retry.';
  if (err.status === 429) return 'Wait a moment, then retry.';
  if (err.status >= 500) return 'The gateway or a backend failed: the events and the backend page say more.';
  return 'Check what you entered and retry.';
}

export function ErrorNote({ error, retry }: { error: ApiError; retry?: () => void }) {
  return (
    <div class="state state-error" role="alert">
      <p>
        <strong>{error.message}</strong>
      </p>
      <p>{advice(error)}</p>
      {retry && (
        <button type="button" onClick={retry}>
          Retry
        </button>
      )}
    </div>
  );
}
