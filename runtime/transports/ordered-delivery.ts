/**
 * Keeps a backend's "notifications before their result" order as the SDK
 * client sees it.
 *
 * Why: the SDK's Protocol hands a notification to its handler one microtask
 * after the transport delivers it (`Promise.resolve().then(handler)`), but
 * settles a response at once, and forgets the request's progress handler when
 * it does. A transport that delivers several messages in one synchronous burst
 * (one stdio chunk, one HTTP body, one SSE chunk) therefore lets a result
 * overtake the progress and log notifications sent before it: the last
 * progress is dropped as "unknown token". The SDK has no hook for this, so this
 * adapter wraps any client Transport: a response that follows a notification
 * delivered in the same event-loop turn is held back until the next turn (by
 * then every notification handler has run), and so is everything after it.
 * Messages without a notification before them pass straight through.
 */
import type { JSONRPCMessage, MessageExtraInfo, TransportSendOptions } from '@modelcontextprotocol/client';
import type { ContainerRef } from '../../schemas/records.js';
import type { BackendTransport } from './backend-transport.js';

/** The longest a notification or answer waits for the one sent before it. */
export const ORDERED_SEND_WAIT_MS = 1000;

type Item = { message: JSONRPCMessage; extra?: MessageExtraInfo } | 'close';

const isResponse = (m: JSONRPCMessage): boolean => 'result' in m || 'error' in m;

/** What must not overtake a notification delivered just before it. */
const waitsForNotifications = (item: Item): boolean => item === 'close' || isResponse(item.message);

export class OrderedDeliveryTransport implements BackendTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  private readonly held: Item[] = [];
  /** A notification was delivered in this event-loop turn (reset on the next turn). */
  private notifiedThisTurn = false;
  private drainScheduled = false;
  /** The last notification or answer sent; the next one waits for it. */
  private outgoing: Promise<void> = Promise.resolve();

  constructor(private readonly inner: BackendTransport) {
    inner.onmessage = (message, extra) => this.push({ message, extra });
    inner.onerror = (error) => this.onerror?.(error);
    // A close must not overtake held answers: the SDK would fail their requests as "connection closed".
    inner.onclose = () => this.push('close');
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  /** Whether each request has its own answer stream (streamable HTTP): 2026-07-28 then cancels a request by ending it. */
  get hasPerRequestStream(): boolean | undefined {
    return this.inner.hasPerRequestStream;
  }

  get pid(): number | undefined {
    return this.inner.pid;
  }

  get container(): ContainerRef | undefined {
    return this.inner.container;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  /**
   * Notifications and answers to the backend's own requests leave in order:
   * over streamable HTTP each is its own POST, and two POSTs in flight can
   * arrive in either order, so a progress notification could land after the
   * answer it belongs to (and the backend's SDK would drop it). Each waits for
   * the one before it to be accepted (a 202, at once), but never longer than
   * ORDERED_SEND_WAIT_MS: a POST that hangs must not hold back every later
   * notification (a cancellation among them). Requests, whose POST may stay
   * open until their result, are never held back.
   */
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ('method' in message && 'id' in message) return this.inner.send(message, options);
    const sent = this.outgoing.then(() => this.inner.send(message, options));
    this.outgoing = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ORDERED_SEND_WAIT_MS);
      timer.unref();
      sent.then(
        () => (clearTimeout(timer), resolve()),
        () => (clearTimeout(timer), resolve()),
      );
    });
    return sent;
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Ends a streamable HTTP session at the server (DELETE); nothing for transports without sessions. */
  async terminateSession(): Promise<void> {
    await this.inner.terminateSession?.();
  }

  private push(item: Item): void {
    if (this.held.length > 0 || (this.notifiedThisTurn && waitsForNotifications(item))) {
      this.held.push(item);
      this.scheduleDrain();
      return;
    }
    this.deliver(item);
  }

  private deliver(item: Item): void {
    if (item === 'close') {
      this.onclose?.();
      return;
    }
    this.onmessage?.(item.message, item.extra);
    if (!isResponse(item.message) && !this.notifiedThisTurn) {
      this.notifiedThisTurn = true;
      setImmediate(() => (this.notifiedThisTurn = false));
    }
  }

  private scheduleDrain(): void {
    if (this.drainScheduled) return;
    this.drainScheduled = true;
    // setImmediate, not a microtask: it runs after every pending microtask, however many hops the SDK's handlers take.
    setImmediate(() => {
      this.drainScheduled = false;
      while (this.held.length > 0) {
        const next = this.held[0]!;
        if (this.notifiedThisTurn && waitsForNotifications(next)) {
          this.scheduleDrain();
          return;
        }
        this.held.shift();
        this.deliver(next);
      }
    });
  }
}

/**
 * Ordered delivery over a stdio channel (a process or a container). The SDK
 * client recognises a stdio transport by its `stderr` and `pid` members, and
 * reads a `server/discover` probe that gets no answer there as a 2025 server
 * (one that ignores unknown requests before `initialize`), where over HTTP it
 * would be an outage. The backend's stderr itself goes to `onstderr`.
 */
export class OrderedStdioDeliveryTransport extends OrderedDeliveryTransport {
  readonly stderr = null;
}
