/**
 * One 2026-07-28 request and the HTTP response that answers it. The answer
 * is a single JSON body when nothing else comes first; as soon as a message
 * related to the request comes before it (progress, a log message, a listen
 * stream's acknowledgment), or the answer takes longer than SSE_AFTER_MS,
 * the response becomes an SSE stream that carries each of them and ends
 * with the answer. No event ids: a broken stream is the request's end, and
 * the client's closing it is its cancellation (`signal`, `onAbandoned`).
 */
import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { serializeMessage } from '../../../runtime/transports/json-rpc.js';
import { writeJsonText } from '../http-answers.js';
import { SSE_HEADERS } from '../sse-stream.js';
import { CLIENT_GONE, type WaitingClient } from '../../../runtime/rounds/waiting-client.js';
import type { PeerMessage } from '../../../runtime/routing/caller.js';

/** The way to an exchange that its notifiers hold: emptied when the exchange is answered or closed. */
interface ExchangeLink {
  exchange?: Exchange;
}

/** An answer still pending after this long gets SSE headers, so a slow call never leaves the client without headers. */
const SSE_AFTER_MS = 1_000;
const KEEP_ALIVE_MS = 15_000;

export class Exchange implements WaitingClient {
  /** Made on first use of `signal`: most requests never need one. */
  private controller?: AbortController;
  private abandoned?: () => void;
  /** The client closed the response before the answer. */
  private gone = false;
  private sse = false;
  private done = false;
  private sseTimer?: NodeJS.Timeout;
  private keepAlive?: NodeJS.Timeout;
  private link?: ExchangeLink;

  constructor(
    private readonly res: ServerResponse,
    /** The id the client gave its request (answers carry it back). */
    readonly clientId: RequestId,
    /** Long-lived exchanges (a listen stream) go to SSE at once. */
    stream = false,
  ) {
    res.once('close', () => {
      if (!this.done) this.abandon();
      this.stop();
      this.unlink();
    });
    if (stream) this.toSse();
    else this.sseTimer = setTimeout(() => this.toSse(), SSE_AFTER_MS).unref();
  }

  /** Aborted when the client closes the response before the answer: the request is cancelled. */
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.gone && !this.controller.signal.aborted) this.controller.abort(CLIENT_GONE);
    return this.controller.signal;
  }

  /** The client closed the response before the answer: the request is cancelled. */
  get closedEarly(): boolean {
    return this.gone;
  }

  /**
   * Calls `abandoned` once if the client closes the response before the
   * answer; returns the undo. One handler at a time, without the event
   * listener bookkeeping of `signal`, for the one waiter every call has.
   */
  onAbandoned(abandoned: () => void): () => void {
    if (this.gone) {
      abandoned();
      return () => undefined;
    }
    this.abandoned = abandoned;
    return () => {
      if (this.abandoned === abandoned) this.abandoned = undefined;
    };
  }

  get answered(): boolean {
    return this.done;
  }

  /**
   * Sends a notification of the request on its response (as `event`) until
   * the answer; after it, nothing, and it no longer holds the exchange. The
   * caller made for the request keeps this, and what a call leaves behind
   * can outlive the request: the backend connection's per-request maps
   * (the SDK's) promote it to the old generation, and whatever it reaches
   * goes with it and costs every young-generation collection until a full
   * one. Held directly, that was this exchange and through it the HTTP
   * request and response: 3 KB per 2026-07-28 call (docs/performance.md,
   * "What the caller kept").
   */
  notifier(): (notification: PeerMessage) => void {
    this.link ??= { exchange: this };
    return notifyThrough(this.link);
  }

  /** A message related to the request, before its answer. */
  event(message: JSONRPCMessage): void {
    if (this.done || this.res.destroyed) return;
    this.toSse();
    this.res.write(`event: message\ndata: ${serializeMessage(message)}\n\n`);
  }

  /** The answer (`status` for a JSON answer; a stream's status was sent with its headers). */
  answer(message: JSONRPCMessage, status = 200): void {
    if (this.done) return;
    this.done = true;
    this.stop();
    this.unlink();
    if (this.sse) {
      if (!this.res.destroyed) this.res.end(`event: message\ndata: ${serializeMessage(message)}\n\n`);
      return;
    }
    writeJsonText(this.res, status, serializeMessage(message));
  }

  private toSse(): void {
    if (this.sse || this.done || this.res.headersSent) return;
    clearTimeout(this.sseTimer);
    this.sse = true;
    this.res.writeHead(200, SSE_HEADERS);
    this.res.flushHeaders();
    this.keepAlive = setInterval(() => this.res.write(': keep-alive\n\n'), KEEP_ALIVE_MS).unref();
  }

  private abandon(): void {
    this.gone = true;
    const abandoned = this.abandoned;
    this.abandoned = undefined;
    abandoned?.();
    if (this.controller && !this.controller.signal.aborted) this.controller.abort(CLIENT_GONE);
  }

  private unlink(): void {
    if (this.link) this.link.exchange = undefined;
  }

  private stop(): void {
    clearTimeout(this.sseTimer);
    clearInterval(this.keepAlive);
  }
}

/** Made out here: a closure made in a method would hold that method's scope, and with it the exchange. */
function notifyThrough(link: ExchangeLink): (notification: PeerMessage) => void {
  return (notification) => link.exchange?.event({ jsonrpc: '2.0', ...notification } as JSONRPCMessage);
}
