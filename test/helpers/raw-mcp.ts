/**
 * A deliberately minimal MCP client over raw HTTP for tests that must see the
 * wire itself: every message the gateway sends, in the order it sent them.
 * (The SDK Client hides that order: it handles notifications a microtask after
 * responses, so a test using it cannot tell "sent late" from "handled late".)
 */
type Message = Record<string, unknown>;

const INIT = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'raw-test-client', version: '1.0.0' },
};

/** Splits a text/event-stream body into the `data` of each `message` (or unnamed) event, in order. */
export function parseSseMessages(body: string): Message[] {
  const out: Message[] = [];
  for (const block of body.split(/\r?\n\r?\n/)) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0 && event === 'message') out.push(JSON.parse(data.join('\n')) as Message);
  }
  return out;
}

export interface RawSession {
  /** Sends one request and resolves with every message that arrived up to and including its answer. */
  request(id: number, method: string, params?: Message): Promise<Message[]>;
  close(): Promise<void>;
}

/** A session on `/mcp` (streamable HTTP). */
export async function rawStreamableHttp(baseUrl: string): Promise<RawSession> {
  const url = `${baseUrl}/mcp`;
  let sessionId = '';
  const post = async (body: Message): Promise<{ status: number; messages: Message[] }> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': INIT.protocolVersion } : {}),
      },
      body: JSON.stringify(body),
    });
    sessionId ||= res.headers.get('mcp-session-id') ?? '';
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    const messages = !text ? [] : type.includes('text/event-stream') ? parseSseMessages(text) : [JSON.parse(text) as Message];
    return { status: res.status, messages };
  };
  await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    async request(id, method, params) {
      return (await post({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) })).messages;
    },
    async close() {
      await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } }).catch(() => undefined);
    },
  };
}

/** A session on `/sse` (the legacy HTTP+SSE transport): answers arrive on the event stream. */
export async function rawSse(baseUrl: string): Promise<RawSession> {
  const ctrl = new AbortController();
  const res = await fetch(`${baseUrl}/sse`, { headers: { accept: 'text/event-stream' }, signal: ctrl.signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let endpoint = '';
  const received: Message[] = [];
  const waiters = new Set<() => void>();
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let cut: number;
      while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '');
        if (/^event: ?endpoint/m.test(block)) endpoint = /^data: ?(.*)$/m.exec(block)![1]!;
        else received.push(...parseSseMessages(block));
        for (const w of [...waiters]) w();
      }
    }
  })().catch(() => undefined);
  const until = (pred: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out; received ${JSON.stringify(received).slice(0, 500)}`)), 15_000);
      const check = () => {
        if (!pred()) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });
  await until(() => endpoint !== '');
  const post = (body: Message) =>
    fetch(new URL(endpoint, baseUrl), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.text());
  const request = async (id: number, method: string, params?: Message): Promise<Message[]> => {
    const start = received.length;
    await post({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    await until(() => received.slice(start).some((m) => m.id === id && ('result' in m || 'error' in m)));
    const mine = received.slice(start);
    return mine.slice(0, mine.findIndex((m) => m.id === id && ('result' in m || 'error' in m)) + 1);
  };
  await request(0, 'initialize', INIT);
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    request,
    async close() {
      ctrl.abort();
      await pump;
    },
  };
}
