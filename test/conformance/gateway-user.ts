/**
 * The person at the gateway during an auth scenario: watches the backend on
 * the management API, and when it waits for consent does what a user of
 * `gateway-client reauth` does: POST /reauth, open the authorization URL in a
 * "browser", wait for the outcome event.
 *
 * The browser is plain HTTP GETs following redirects: the suite's
 * authorization server approves at once and redirects to the gateway's
 * loopback callback, which answers with its small page.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { BackendRecord, EventRecord } from '../../cli/client/api-types.js';
import { followEvents } from '../../cli/client/event-stream.js';
import { ManagementClient } from '../../cli/client/management-client.js';

/** Where a backend stands once it stopped connecting. */
export type Settled =
  | { kind: 'ready' }
  /** Authenticated=false / AuthorizationRequired: parked until the user consents. */
  | { kind: 'authorization_required'; message: string }
  /** Any other connect failure (the gateway retries it with backoff). */
  | { kind: 'failed'; message: string };

const SETTLE_TIMEOUT_MS = 15_000;
const POLL_MS = 50;

export class GatewayUser {
  private readonly api: ManagementClient;

  constructor(
    baseUrl: string,
    private readonly backend: string,
  ) {
    this.api = new ManagementClient({ baseUrl, token: process.env.GATEWAY_MGMT_TOKEN });
  }

  /** Waits until the backend is Ready, parked for authorization, or failed. */
  async settled(timeoutMs = SETTLE_TIMEOUT_MS): Promise<Settled> {
    const deadline = Date.now() + timeoutMs;
    let last: BackendRecord | undefined;
    while (Date.now() < deadline) {
      last = (await this.api.backends()).backends.find((b) => b.name === this.backend);
      const settled = last && settledOf(last);
      if (settled) return settled;
      await sleep(POLL_MS);
    }
    throw new Error(`backend ${this.backend} did not settle within ${timeoutMs} ms (last record: ${JSON.stringify(last)})`);
  }

  /**
   * What an operator watches for after a client's call failed for want of a
   * scope: the backend still Ready, its Authenticated condition false with
   * reason InsufficientScope. Resolves with that condition.
   */
  async stepUpNeeded(timeoutMs = SETTLE_TIMEOUT_MS): Promise<{ message: string }> {
    const deadline = Date.now() + timeoutMs;
    let last: BackendRecord | undefined;
    while (Date.now() < deadline) {
      last = (await this.api.backends()).backends.find((b) => b.name === this.backend);
      const authenticated = last?.conditions.find((c) => c.type === 'Authenticated');
      if (last?.phase === 'Ready' && authenticated?.status === false && authenticated.reason === 'InsufficientScope') return authenticated;
      await sleep(POLL_MS);
    }
    throw new Error(`backend ${this.backend} never showed Authenticated=false / InsufficientScope while Ready (last record: ${JSON.stringify(last)})`);
  }

  /** Ready at once, or after one consent if the gateway asks for it; throws otherwise. */
  async ensureReady(): Promise<void> {
    let state = await this.settled();
    if (state.kind === 'authorization_required') state = await this.consent();
    if (state.kind !== 'ready') throw new Error(`backend ${this.backend} is not Ready: ${state.message}`);
  }

  /**
   * One re-authentication as `gateway-client reauth` runs it: the event
   * stream is opened first (so nothing can slip past), POST /reauth, the
   * authorization URL in the "browser", the outcome event; then the
   * reconnect the gateway starts by itself (its `connected` or `error`
   * event), and where the backend stands after it.
   */
  async consent(): Promise<Settled> {
    const events = new BackendEvents(this.api, this.backend);
    try {
      await events.opened;
      const started = await this.api.reauth(this.backend);
      if (!started.reauth_initiated) throw new ReauthRefused(started.error ?? 'no reason given');
      if (started.authorization_url) await openInBrowser(started.authorization_url);
      const outcome = await events.next((e) => e.stage === 'reauthenticated' || e.stage === 'reauth_failed');
      if (outcome.stage === 'reauth_failed') throw new Error(`re-authentication of ${this.backend} failed: ${outcome.message}`);
      await events.next((e) => e.stage === 'connected' || e.stage === 'error');
    } finally {
      events.close();
    }
    return this.settled();
  }
}

/** The backend's events from the live stream, in order, awaited one predicate at a time. */
class BackendEvents {
  readonly opened: Promise<void>;
  private readonly seen: EventRecord[] = [];
  private readonly stop = new AbortController();
  private wake?: () => void;

  constructor(api: ManagementClient, backend: string) {
    let opened!: () => void;
    let failed!: (err: Error) => void;
    let isOpen = false;
    this.opened = new Promise((resolve, reject) => ((opened = resolve), (failed = reject)));
    void followEvents(
      api,
      {
        onOpen: () => {
          isOpen = true;
          opened();
        },
        // Before it opened, a drop means the management API cannot be asked at all; later drops just reconnect.
        onDrop: (err) => {
          if (!isOpen) failed(new Error(`the gateway's event stream did not open: ${err?.message ?? 'closed'}`));
        },
        onEvent: (e) => {
          if (e.backend !== backend) return;
          this.seen.push(e);
          this.wake?.();
        },
      },
      { signal: this.stop.signal },
    );
  }

  /** The first event not consumed yet that matches (earlier ones are consumed too). */
  async next(matches: (e: EventRecord) => boolean, timeoutMs = SETTLE_TIMEOUT_MS): Promise<EventRecord> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.seen.findIndex(matches);
      if (index >= 0) return this.seen.splice(0, index + 1)[index]!;
      this.seen.length = 0;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for an event`);
      const timer = new AbortController();
      await Promise.race([new Promise<void>((resolve) => (this.wake = resolve)), sleep(left, undefined, { signal: timer.signal }).catch(() => undefined)]);
      timer.abort();
    }
  }

  close(): void {
    this.stop.abort();
  }
}

/** POST /reauth answered `reauth_initiated: false`: the gateway would not even start the authorization. */
export class ReauthRefused extends Error {
  constructor(readonly reason: string) {
    super(`the gateway refused to start the authorization: ${reason}`);
  }
}

function settledOf(record: BackendRecord): Settled | undefined {
  if (record.phase === 'Ready') return { kind: 'ready' };
  const authenticated = record.conditions.find((c) => c.type === 'Authenticated');
  if (authenticated?.status === false) return { kind: 'authorization_required', message: authenticated.message };
  const ready = record.conditions.find((c) => c.type === 'Ready');
  if (record.state === 'disconnected' && record.error !== null && ready?.reason === 'ConnectFailed') return { kind: 'failed', message: record.error };
  return undefined;
}

/** What a browser does with the URL: GET, follow redirects, show the last page (which must be a success). */
async function openInBrowser(url: string): Promise<void> {
  const res = await fetch(url, { redirect: 'follow' });
  const page = await res.text();
  if (!res.ok) throw new Error(`the browser ended on ${res.url} with HTTP ${res.status}: ${page.slice(0, 500)}`);
}
