/**
 * `subscriptions/listen` (2026-07-28): a request whose response stream stays
 * open and carries the change notifications the client opted in to. The
 * acknowledgment comes first, naming what is honoured; every notification
 * carries the subscription id (the listen request's id) in its `_meta`.
 * What reaches a stream is decided by the fan-out, the same one that serves
 * 2025-11-25 sessions (runtime/routing/client-fanout.ts): list changes, and
 * updates of the resources it subscribed to, which must be resources the
 * caller may read, as for a 2025-11-25 subscription.
 *
 * The stream ends when the client closes it, or gracefully (a result naming
 * the subscription) when the gateway shuts down.
 */
import { randomUUID } from 'node:crypto';
import type { RequestId } from '@modelcontextprotocol/server';
import type { CallerContext, JsonObject } from '../../../runtime/routing/caller.js';
import type { ClientFanout, ClientNotice, ListenEndpoint } from '../../../runtime/routing/client-fanout.js';
import type { ListKind } from '../../../runtime/routing/route-table.js';
import type { ResourceSubscriptions } from '../../../runtime/routing/resource-subscriptions.js';
import type { Router } from '../../../runtime/routing/router.js';
import type { CallerView } from '../../../runtime/access/caller-view.js';
import { BadRequestError } from '../../../schemas/errors.js';

export const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** The filter's list kinds, by the name a client opts in with. */
const LIST_FILTERS: Record<ListKind, string> = { tools: 'toolsListChanged', prompts: 'promptsListChanged', resources: 'resourcesListChanged' };

export interface ListenDeps {
  fanout: ClientFanout;
  subscriptions: ResourceSubscriptions;
  router: Pick<Router, 'resourceRoute'>;
  view: CallerView;
}

/** One open listen: where its notifications go, and how it ends. */
export interface ListenChannel {
  /** The listen request's id: the subscription id. */
  readonly id: RequestId;
  notify(notification: ClientNotice): void;
  /** Aborted when the client closes the stream. */
  readonly signal: AbortSignal;
}

export class ListenStreams {
  /** Open streams → what ends them gracefully. */
  private readonly open = new Set<() => void>();

  constructor(private readonly deps: ListenDeps) {}

  get size(): number {
    return this.open.size;
  }

  /** Serves one listen until it ends; resolves with its closing result. */
  async listen(params: JsonObject, caller: CallerContext, channel: ListenChannel): Promise<JsonObject> {
    const filter = params.notifications;
    if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
      throw new BadRequestError('Invalid params: subscriptions/listen needs a `notifications` filter object');
    }
    const wanted = filter as Record<string, unknown>;
    const kinds = new Set((Object.keys(LIST_FILTERS) as ListKind[]).filter((k) => wanted[LIST_FILTERS[k]] === true));
    const subscriber = `listen:${randomUUID()}`;
    const meta = { [SUBSCRIPTION_ID]: channel.id };
    let acknowledged = false;
    const early: ClientNotice[] = [];
    const send = (n: ClientNotice) => {
      const tagged = { method: n.method, params: { ...n.params, _meta: { ...(n.params?._meta as JsonObject | undefined), ...meta } } };
      if (acknowledged) channel.notify(tagged);
      else early.push(tagged);
    };
    // In the fan-out before the backends are subscribed: an update right behind a subscription's answer is kept for after the acknowledgment.
    const endpoint: ListenEndpoint = {
      id: subscriber,
      listChanged: (kind) => {
        if (kinds.has(kind)) send({ method: `notifications/${kind}/list_changed` });
      },
      resourceUpdated: (n) => send(n),
    };
    const removeListener = this.deps.fanout.addListener(endpoint);
    try {
      const uris = await this.subscribeResources(subscriber, caller, wanted.resourceSubscriptions);
      const honored: JsonObject = {};
      for (const kind of kinds) honored[LIST_FILTERS[kind]] = true;
      if (uris.length > 0 || Array.isArray(wanted.resourceSubscriptions)) honored.resourceSubscriptions = uris;
      channel.notify({ method: 'notifications/subscriptions/acknowledged', params: { _meta: meta, notifications: honored } });
      acknowledged = true;
      for (const n of early.splice(0)) channel.notify(n);
      await this.untilEnd(channel.signal);
      return { _meta: meta };
    } finally {
      removeListener();
      await this.deps.subscriptions.dropSession(subscriber);
    }
  }

  /** Ends every open stream gracefully (shutdown): each answers its listen request. */
  closeAll(): void {
    for (const end of [...this.open]) end();
  }

  /** The URIs the caller may read among those it asked for, each subscribed at its backend; the others are left out of the acknowledgment. */
  private async subscribeResources(subscriber: string, caller: CallerContext, asked: unknown): Promise<string[]> {
    if (!Array.isArray(asked)) return [];
    const uris = [...new Set(asked.filter((u): u is string => typeof u === 'string'))];
    const honored: string[] = [];
    for (const uri of uris) {
      const route = this.deps.router.resourceRoute(uri);
      if (!route || !this.deps.view.mayRead(caller, uri, route.backend)) continue;
      try {
        await this.deps.subscriptions.subscribe(subscriber, uri);
        honored.push(uri);
      } catch {
        // The backend refused it: not honoured, and the acknowledgment says so by leaving it out.
      }
    }
    return honored;
  }

  private untilEnd(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const end = () => {
        this.open.delete(end);
        signal.removeEventListener('abort', end);
        resolve();
      };
      if (signal.aborted) return resolve();
      this.open.add(end);
      signal.addEventListener('abort', end, { once: true });
    });
  }
}
