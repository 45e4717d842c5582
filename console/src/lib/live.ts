/**
 * The gateway's live events (GET /manage/v1/events/stream), shared by every
 * page: the newest events, a counter that moves with each one (pages that
 * show live data fetch again when it moves), and whether the stream is up.
 * EventSource reconnects by itself after a network error; when the gateway
 * refuses the stream (signed out, restarted without the session), it is
 * opened again after a growing pause, once the sign-in is checked.
 */
import { API, refreshSession } from './api.js';
import { createStore } from './store.js';
import type { EventRecord } from './types.js';

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'off';

const KEPT = 200;
/** Pages re-fetch at most this often however fast events come. */
const SETTLE_MS = 400;

export const liveState = createStore<LiveState>('off');
export const liveEvents = createStore<EventRecord[]>([]);
/** Moves when events arrived (at most every SETTLE_MS). */
export const liveTick = createStore(0);

let source: EventSource | undefined;
let retryMs = 1000;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let settleTimer: ReturnType<typeof setTimeout> | undefined;

export function startLive(): void {
  if (source) return;
  clearTimeout(retryTimer);
  liveState.set(liveState.get() === 'off' ? 'connecting' : 'reconnecting');
  const es = new EventSource(`${API}/events/stream`);
  source = es;
  es.onopen = () => {
    retryMs = 1000;
    liveState.set('live');
    // What happened while the stream was down is fetched again.
    bump();
  };
  es.onmessage = (m: MessageEvent<string>) => {
    let event: EventRecord;
    try {
      event = JSON.parse(m.data) as EventRecord;
    } catch {
      return;
    }
    liveEvents.set([event, ...liveEvents.get()].slice(0, KEPT));
    if (settleTimer === undefined) settleTimer = setTimeout(bump, SETTLE_MS);
  };
  es.onerror = () => {
    if (es.readyState === EventSource.CONNECTING) {
      liveState.set('reconnecting');
      return;
    }
    // Closed for good by the browser (a refusal): try again later, as ourselves.
    es.close();
    source = undefined;
    liveState.set('reconnecting');
    retryTimer = setTimeout(() => {
      void refreshSession()
        .catch(() => undefined)
        .then((s) => {
          if (s?.signed_in) startLive();
          else stopLive();
        });
    }, retryMs);
    retryMs = Math.min(retryMs * 2, 15_000);
  };
}

export function stopLive(): void {
  clearTimeout(retryTimer);
  source?.close();
  source = undefined;
  liveState.set('off');
}

function bump(): void {
  clearTimeout(settleTimer);
  settleTimer = undefined;
  liveTick.set(liveTick.get() + 1);
}

/** Seeds the list with the events that came before the page opened. */
export function seedEvents(events: EventRecord[]): void {
  const known = new Set(liveEvents.get().map((e) => e.id));
  const older = [...events].reverse().filter((e) => !known.has(e.id));
  liveEvents.set([...liveEvents.get(), ...older].slice(0, KEPT));
}
