/**
 * A raw streamable HTTP session for tests that look at SSE streams event by
 * event: each event's id, data and `retry:`, streams that can be dropped
 * mid-way, and GETs with `Last-Event-ID`. Each request may go to its own base
 * URL (a test forces requests onto different replicas that way).
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { Changes } from './changes.js';

export type Message = Record<string, unknown>;

export interface SseEvent {
  id?: string;
  data: string;
  /** The message, for an event with data. */
  message?: Message;
}

export const PROTOCOL = '2025-11-25';

const INIT = (name: string) => ({
  protocolVersion: PROTOCOL,
  capabilities: { sampling: {}, elicitation: {}, roots: {} },
  clientInfo: { name, version: '1.0.0' },
});

/** One HTTP response read as it arrives: JSON (one message) or SSE (events). */
export class OpenResponse {
  readonly events: SseEvent[] = [];
  readonly changes = new Changes();
  retry?: number;
  ended = false;
  json?: Message | Message[];
  constructor(
    readonly status: number,
    readonly headers: Headers,
    private readonly abort: AbortController,
  ) {}

  /** Messages received so far (JSON answer or SSE events with data). */
  get messages(): Message[] {
    if (this.json) return Array.isArray(this.json) ? this.json : [this.json];
    return this.events.flatMap((e) => (e.message ? [e.message] : []));
  }

  get lastEventId(): string | undefined {
    return [...this.events].reverse().find((e) => e.id !== undefined)?.id;
  }

  until<T>(cond: () => T | undefined | null | false, what: string): Promise<T> {
    return this.changes.until(cond, what);
  }

  /** The answer to request `id`, once it came. */
  answer(id: number | string): Promise<Message> {
    return this.until(() => this.messages.find((m) => m.id === id && ('result' in m || 'error' in m)), `the answer to ${String(id)}`);
  }

  /** Drops the connection (as a client whose network went away). */
  drop(): void {
    this.abort.abort();
  }

  /** Resolves once the server ended the response. */
  whenEnded(): Promise<true> {
    return this.until(() => this.ended || undefined, 'the response to end');
  }
}

async function open(url: string, init: RequestInit): Promise<OpenResponse> {
  const abort = new AbortController();
  const res = await fetch(url, { ...init, signal: abort.signal });
  const open = new OpenResponse(res.status, res.headers, abort);
  const type = res.headers.get('content-type') ?? '';
  if (!type.includes('text/event-stream')) {
    const text = await res.text();
    if (text) open.json = JSON.parse(text) as Message;
    open.ended = true;
    return open;
  }
  const reader = res
    .body!.pipeThrough(new TextDecoderStream())
    .pipeThrough(
      new EventSourceParserStream({
        onRetry: (ms) => {
          open.retry = ms;
          open.changes.notify();
        },
      }),
    )
    .getReader();
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        open.events.push({ id: value.id, data: value.data, ...(value.data ? { message: JSON.parse(value.data) as Message } : {}) });
        open.changes.notify();
      }
    } catch {
      // Dropped by the test, or the server went away.
    }
    open.ended = true;
    open.changes.notify();
  })();
  return open;
}

export class SseSession {
  private constructor(
    readonly id: string,
    private readonly defaultBase: string,
    /** The bearer token every request carries (client authentication), if any. */
    private readonly token?: string,
  ) {}

  /** Initializes a session at `base` (a gateway or a balancer URL, without `/mcp`), as the identity of `token` if given. */
  static async open(base: string, clientName = 'sse-test-client', token?: string): Promise<SseSession> {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...bearer(token) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT(clientName) }),
    });
    const id = res.headers.get('mcp-session-id');
    await res.text();
    if (res.status !== 200 || !id) throw new Error(`initialize failed: HTTP ${res.status}`);
    const session = new SseSession(id, base, token);
    const ack = await session.notify({ method: 'notifications/initialized' });
    if (ack !== 202) throw new Error(`notifications/initialized: HTTP ${ack}`);
    return session;
  }

  /** The same session id, sent with another identity's token (or none). */
  as(token: string | undefined): SseSession {
    return new SseSession(this.id, this.defaultBase, token);
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { 'mcp-session-id': this.id, 'mcp-protocol-version': PROTOCOL, ...bearer(this.token), ...extra };
  }

  /** POSTs one message (or a batch) and reads the answer as it arrives. */
  post(body: Message | Message[], base = this.defaultBase): Promise<OpenResponse> {
    const wrap = (m: Message) => ({ jsonrpc: '2.0', ...m });
    return open(`${base}/mcp`, {
      method: 'POST',
      headers: this.headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' }),
      body: JSON.stringify(Array.isArray(body) ? body.map(wrap) : wrap(body)),
    });
  }

  /** A notification or a response: the HTTP status. */
  async notify(body: Message, base = this.defaultBase): Promise<number> {
    const res = await this.post(body, base);
    return res.status;
  }

  /** Opens the GET stream, or resumes a stream with `lastEventId`. */
  get(lastEventId?: string, base = this.defaultBase): Promise<OpenResponse> {
    return open(`${base}/mcp`, {
      method: 'GET',
      headers: this.headers({ accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) }),
    });
  }

  async call(id: number, name: string, args: Record<string, unknown> = {}, base = this.defaultBase, meta?: Message): Promise<Message> {
    const res = await this.post({ id, method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } }, base);
    if (res.status !== 200) throw new Error(`tools/call ${name} at ${base}: HTTP ${res.status} ${JSON.stringify(res.json)}`);
    return res.answer(id);
  }

  async delete(base = this.defaultBase): Promise<number> {
    const res = await fetch(`${base}/mcp`, { method: 'DELETE', headers: this.headers() });
    await res.text();
    return res.status;
  }
}

/** A bare `initialize` (no session follows): the status, `Retry-After` and the JSON-RPC answer, for tests of refusals. */
export async function tryInitialize(base: string): Promise<{ status: number; retryAfter: string | null; body: { error?: { code: number; message: string } } }> {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { ...INIT('late'), capabilities: {} } }),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { error?: { code: number; message: string } } };
}

function bearer(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

export const textOf = (m: Message): string => ((m.result as { content: Array<{ text: string }> }).content[0]?.text ?? '') as string;
