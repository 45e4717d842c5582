/**
 * What the TUI knows about the active gateway, kept current: the event
 * stream and a /health poll (ServerConnection) say at once when something
 * happens or the server goes away, and a poll of the rest (/batch, /sessions,
 * /skills, /plugins) every `pollMs` catches what events do not announce. While the
 * server does not answer, that poll backs off; the health poll keeps probing
 * and brings it back at once when the server returns. Nothing here throws:
 * failures become `error` (no answer) or `apiError` (an answer that refused).
 */
import { ServerConnection } from '../../client/server-connection.js';
import { UnreachableError } from '../../client/errors.js';
import type { ManagementClient } from '../../client/management-client.js';
import type { BackendRecord, Capabilities, Clients, EventRecord, Health, Plugins, Sessions, Skills, Status } from '../../client/api-types.js';

export interface GatewaySnapshot {
  url: string;
  /** No answer yet, nor a failure: the first moments after start or a switch. */
  connecting: boolean;
  /** The server answers. */
  reachable: boolean;
  /** Why it does not answer. */
  error?: string;
  /** It answers but refused the last poll (a 401 without the right token, say). */
  apiError?: string;
  streaming: boolean;
  health?: Health;
  status?: Status;
  backends: BackendRecord[];
  capabilities?: Capabilities;
  sessions?: Sessions;
  /** Clients seen without a session (2026-07-28); absent from a gateway that does not list them. */
  clients?: Clients;
  skills?: Skills;
  skillsError?: string;
  plugins?: Plugins;
  /** Why /plugins did not answer (a gateway older than the plugin chain answers 404). */
  pluginsError?: string;
  /** Newest first. */
  events: EventRecord[];
  /** Epoch ms of the last answer (poll or event). */
  updatedAt?: number;
}

/** Events kept in memory (the API's own maximum per request is 1000 too). */
export const EVENTS_KEPT = 1000;
/** How often the rest is polled; events and the health probe are faster. */
export const POLL_MS = 2000;
const MAX_BACKOFF_MS = 16_000;
/** Several events in a row cause one poll. */
const EVENT_POLL_DELAY_MS = 150;

export class LiveGateway {
  private snap: GatewaySnapshot;
  private readonly listeners = new Set<() => void>();
  private readonly connection: ServerConnection;
  private timer?: NodeJS.Timeout;
  private dueAt = Infinity;
  private polling = false;
  private pollAgain = false;
  private failures = 0;
  private closed = false;

  constructor(
    readonly client: ManagementClient,
    private readonly opts: { pollMs?: number } = {},
  ) {
    this.snap = { url: client.baseUrl, connecting: true, reachable: false, streaming: false, backends: [], events: [] };
    this.connection = new ServerConnection(client, { pollMs: this.pollMs });
  }

  get snapshot(): GatewaySnapshot {
    return this.snap;
  }

  private get pollMs(): number {
    return this.opts.pollMs ?? POLL_MS;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): this {
    this.connection.on('state', (s) => {
      const cameBack = s.reachable && !this.snap.reachable;
      this.set({
        connecting: false,
        reachable: s.reachable,
        streaming: s.streaming,
        ...(s.reachable ? { health: s.health, error: undefined, updatedAt: Date.now() } : { error: s.error }),
      });
      if (cameBack) this.pollIn(0);
    });
    this.connection.on('event', (e) => {
      this.set({ events: mergeEvents(this.snap.events, [e]), updatedAt: Date.now() });
      this.pollIn(EVENT_POLL_DELAY_MS);
    });
    this.connection.start();
    this.pollIn(0);
    return this;
  }

  /** Polls now (the `reload` of a view). */
  refresh(): void {
    this.pollIn(0);
    void this.connection.refresh();
  }

  /** Loads up to `limit` past events into the list (for a backend's log). */
  async loadEvents(limit = EVENTS_KEPT): Promise<void> {
    try {
      const { events } = await this.client.events({ limit });
      if (!this.closed) this.set({ events: mergeEvents(this.snap.events, events) });
    } catch {
      // The poll reports the server's state; older events are a nicety.
    }
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.connection.close();
    this.listeners.clear();
  }

  private pollIn(ms: number): void {
    if (this.closed) return;
    if (this.polling) {
      // Something happened while a poll was out: poll once more when it is back.
      this.pollAgain = true;
      return;
    }
    const at = Date.now() + ms;
    if (at >= this.dueAt) return;
    clearTimeout(this.timer);
    this.dueAt = at;
    this.timer = setTimeout(() => void this.poll(), ms);
  }

  private async poll(): Promise<void> {
    this.dueAt = Infinity;
    this.polling = true;
    try {
      const [batch, sessions, clients, skills, plugins] = await Promise.all([
        this.client.batch(200),
        this.client.sessions(),
        settled(this.client.clients()),
        settled(this.client.skills()),
        settled(this.client.plugins()),
      ]);
      this.failures = 0;
      if (!this.closed)
        this.set({
          connecting: false,
          reachable: true,
          error: undefined,
          apiError: undefined,
          status: batch.status,
          backends: batch.backends.backends,
          capabilities: batch.capabilities,
          events: mergeEvents(this.snap.events, batch.events.events),
          sessions,
          clients: clients.value ?? this.snap.clients,
          skills: skills.value ?? this.snap.skills,
          skillsError: skills.error,
          plugins: plugins.value ?? this.snap.plugins,
          pluginsError: plugins.error,
          updatedAt: Date.now(),
        });
    } catch (err) {
      this.failures++;
      if (!this.closed) {
        const message = (err as Error).message;
        this.set(err instanceof UnreachableError ? { connecting: false, reachable: false, error: message } : { connecting: false, apiError: message });
      }
    } finally {
      this.polling = false;
    }
    const again = this.pollAgain;
    this.pollAgain = false;
    this.pollIn(again ? 0 : this.failures ? Math.min(MAX_BACKOFF_MS, this.pollMs * 2 ** (this.failures - 1)) : this.pollMs);
  }

  private set(patch: Partial<GatewaySnapshot>): void {
    if (this.closed) return;
    this.snap = { ...this.snap, ...patch };
    for (const l of this.listeners) l();
  }
}

/** An answer that may fail on its own without failing the poll (an area the gateway may refuse, or not have). */
function settled<T>(answer: Promise<T>): Promise<{ value?: T; error?: string }> {
  return answer.then(
    (value) => ({ value }),
    (err: Error) => ({ error: err.message }),
  );
}

/**
 * `current` and `more` as one list, newest first, without duplicates. Event
 * ids count from 1 in each gateway process, so the timestamp is part of the key.
 */
export function mergeEvents(current: EventRecord[], more: EventRecord[]): EventRecord[] {
  const byKey = new Map<string, EventRecord>();
  for (const e of [...current, ...more]) byKey.set(`${e.id}@${e.timestamp}`, e);
  return [...byKey.values()].sort(newestFirst).slice(0, EVENTS_KEPT);
}

function newestFirst(a: EventRecord, b: EventRecord): number {
  return Date.parse(b.timestamp) - Date.parse(a.timestamp) || Number(b.id) - Number(a.id);
}
