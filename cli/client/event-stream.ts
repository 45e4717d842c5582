/**
 * The live event stream (`GET /manage/v1/events/stream`, Server-Sent Events)
 * as a callback per event record. It reconnects after the stream drops or
 * the server goes away, with a growing delay, until the signal aborts; the
 * handlers hear each open and each drop, which is how a client notices the
 * server leaving and coming back.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ManagementClient } from './management-client.js';
import type { EventRecord } from './api-types.js';
import { ApiError, errorBodyOf, networkReason, UnreachableError } from './errors.js';

export interface EventStreamHandlers {
  onEvent(event: EventRecord): void;
  /** The stream is open (first time and after every reconnect). */
  onOpen?(): void;
  /** The stream ended or could not be opened; a reconnect follows unless `reconnect` is false. */
  onDrop?(error: ApiError | UnreachableError | undefined): void;
}

export interface FollowOptions {
  signal: AbortSignal;
  /** Default true. */
  reconnect?: boolean;
  minDelayMs?: number;
  maxDelayMs?: number;
}

/** Resolves when `signal` aborts (or, with `reconnect: false`, when the stream ends). */
export async function followEvents(client: ManagementClient, handlers: EventStreamHandlers, opts: FollowOptions): Promise<void> {
  const min = opts.minDelayMs ?? 250;
  const max = opts.maxDelayMs ?? 5000;
  let delay = min;
  while (!opts.signal.aborted) {
    let error: ApiError | UnreachableError | undefined;
    try {
      await readStream(client, handlers, opts.signal, () => (delay = min));
    } catch (err) {
      if (opts.signal.aborted) break;
      error = err instanceof ApiError || err instanceof UnreachableError ? err : new UnreachableError(client.baseUrl, networkReason(err));
    }
    if (opts.signal.aborted) break;
    handlers.onDrop?.(error);
    if (opts.reconnect === false) break;
    await sleep(delay, undefined, { signal: opts.signal }).catch(() => undefined);
    delay = Math.min(max, delay * 2);
  }
}

/** One connection, until the stream ends or breaks. */
async function readStream(client: ManagementClient, handlers: EventStreamHandlers, signal: AbortSignal, opened: () => void): Promise<void> {
  const url = client.url('/events/stream');
  let res: Response;
  try {
    res = await fetch(url, { headers: client.headers({ accept: 'text/event-stream' }), signal });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new UnreachableError(client.baseUrl, networkReason(err));
  }
  if (!res.ok || !res.body) throw new ApiError(res.status, errorBodyOf(res.status, res.statusText, await res.text().catch(() => '')), url);
  opened();
  handlers.onOpen?.();
  const messages = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const message of messages) {
    const event = parseEvent(message.data);
    if (event) handlers.onEvent(event);
  }
}

/** A frame's event record; undefined for a frame that is not one. */
function parseEvent(data: string): EventRecord | undefined {
  try {
    const value = JSON.parse(data) as Partial<EventRecord> | null;
    return value && typeof value.stage === 'string' ? (value as EventRecord) : undefined;
  } catch {
    return undefined;
  }
}
