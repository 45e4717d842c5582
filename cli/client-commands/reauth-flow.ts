/**
 * `reauth NAME [--user ID]`: start the backend's sign-in (or that user's, on
 * a backend that acts for each user), show (and open) the authorization
 * URL, then wait for the event that ends it (for a user: the event whose
 * details name that user). The event stream is opened before the request so
 * the outcome cannot slip past.
 */
import { spawn } from 'node:child_process';
import type { Io } from './client-command.js';
import { followEvents } from '../client/event-stream.js';
import type { EventRecord } from '../client/api-types.js';
import { EXIT } from '../output/exit-codes.js';
import { CommandFailure } from '../output/report-error.js';

const OUTCOMES = new Set(['reauthenticated', 'reauth_failed']);

export async function awaitReauth(io: Io, backend: string, opts: { openBrowser: boolean; timeoutMs: number; user?: string }): Promise<number> {
  const stop = new AbortController();
  const signal = AbortSignal.any([stop.signal, io.signal, AbortSignal.timeout(opts.timeoutMs)]);
  let outcome: EventRecord | undefined;
  let opened!: () => void;
  let failed!: (err: Error) => void;
  const streamOpen = new Promise<void>((resolve, reject) => ((opened = resolve), (failed = reject)));
  const following = followEvents(
    io.client,
    {
      onOpen: opened,
      // Before it opened, a drop means the gateway cannot be asked at all; later drops just reconnect.
      onDrop: (err) => failed(err ?? new CommandFailure('The event stream closed')),
      onEvent: (e) => {
        if (e.backend !== backend || !OUTCOMES.has(e.stage) || e.details.user !== opts.user) return;
        outcome = e;
        stop.abort();
      },
    },
    { signal },
  );
  try {
    await streamOpen;
    const r = await io.client.reauth(backend, opts.user);
    if (!r.reauth_initiated) {
      if (io.format !== 'table') io.print(r, () => '');
      throw new CommandFailure(r.error ?? `Re-authentication of ${backend} was not started`);
    }
    if (r.authorization_url) {
      const who = opts.user === undefined ? '' : ` as user ${opts.user}`;
      io.notice(r, (safe) => `Open this URL to sign in to ${backend}${who}:\n  ${safe.authorization_url}\n`);
      if (opts.openBrowser && hasDisplay()) openBrowser(r.authorization_url);
    }
    io.err(`Waiting for ${backend} to be re-authenticated…\n`);
    await following;
  } finally {
    stop.abort();
  }
  const final = outcome;
  if (!final) throw new CommandFailure(io.signal.aborted ? 'Interrupted' : `No outcome for ${backend} within ${opts.timeoutMs / 1000} s`);
  io.print(final, (e) => `${e.stage === 'reauthenticated' ? io.c.green('✓') : io.c.red('✗')} ${e.message}\n`);
  return final.stage === 'reauthenticated' ? EXIT.ok : EXIT.failure;
}

function hasDisplay(): boolean {
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

function openBrowser(url: string): void {
  const child = spawn('xdg-open', [url], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}
