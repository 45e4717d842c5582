/**
 * Issue 11: runtime/transports/line-reader.ts (JsonRpcLineReader) against the
 * SDK's ReadBuffer (@modelcontextprotocol/sdk/shared/stdio.js) on the same
 * byte streams. ReadBuffer is driven as the SDK's StdioClientTransport drives
 * it: append a chunk, read every complete line, one error per bad line; an
 * append that overflows its 10 MiB limit throws (and that transport then
 * closes itself).
 */
import { describe, expect, it } from 'vitest';
import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { isJSONRPCErrorResponse, isJSONRPCNotification, isJSONRPCRequest, isJSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';
import { JsonRpcLineReader } from '../../../../runtime/transports/line-reader.js';

interface Outcome {
  messages: unknown[];
  /** Number of errors reported (bad lines, overflow). */
  errors: number;
  /** ReadBuffer only: an append overflowed (the SDK transport closes on it). */
  overflow?: boolean;
}

function viaLineReader(chunks: Buffer[]): Outcome {
  const reader = new JsonRpcLineReader();
  const out: Outcome = { messages: [], errors: 0 };
  for (const chunk of chunks) {
    reader.push(
      chunk,
      (m) => out.messages.push(m),
      () => out.errors++,
    );
  }
  return out;
}

function viaReadBuffer(chunks: Buffer[]): Outcome {
  const buffer = new ReadBuffer();
  const out: Outcome = { messages: [], errors: 0 };
  for (const chunk of chunks) {
    try {
      buffer.append(chunk);
    } catch {
      out.errors++;
      out.overflow = true;
      return out; // StdioClientTransport closes itself here.
    }
    for (;;) {
      try {
        const message = buffer.readMessage();
        if (message === null) break;
        out.messages.push(message);
      } catch {
        out.errors++;
      }
    }
  }
  return out;
}

const both = (chunks: Buffer[]) => ({ ours: viaLineReader(chunks), sdk: viaReadBuffer(chunks) });

/** Every way to cut `bytes` in two, plus one byte at a time. */
function splits(bytes: Buffer): Buffer[][] {
  const out: Buffer[][] = [];
  for (let i = 1; i < bytes.length; i++) out.push([bytes.subarray(0, i), bytes.subarray(i)]);
  out.push([...bytes].map((b) => Buffer.from([b])));
  return out;
}

const line = (m: unknown, eol = '\n'): string => JSON.stringify(m) + eol;

const MESSAGES = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'héllo ✓ 😀 ü' } } },
  { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, total: 2 } },
  { jsonrpc: '2.0', id: 'x', result: { content: [{ type: 'text', text: '€ and \u2028 and "quotes"' }] } },
  { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found', data: { tried: ['a'] } } },
];

describe('JsonRpcLineReader and the SDK ReadBuffer on the same bytes', () => {
  it('agree on a stream cut at every byte, also inside multi-byte UTF-8 characters, with LF and CRLF endings', () => {
    for (const eol of ['\n', '\r\n']) {
      const stream = Buffer.from(MESSAGES.map((m) => line(m, eol)).join(''));
      const whole = both([stream]);
      expect(whole.ours).toEqual({ messages: MESSAGES, errors: 0 });
      expect(whole.sdk).toEqual({ messages: MESSAGES, errors: 0 });
      for (const chunks of splits(stream)) {
        const { ours, sdk } = both(chunks);
        expect(ours, `cut ${chunks.map((c) => c.length).join('+')}`).toEqual(whole.ours);
        expect(sdk).toEqual(whole.sdk);
      }
    }
  });

  it('blank and whitespace-only lines: ours skips them, ReadBuffer reports each as an error (the messages agree)', () => {
    // Deliberate: a blank line is no message, so ours does not report it; the SDK
    // JSON-parses it and reports the failure through onerror (harmless to its Client).
    const stream = Buffer.from(`\n${line(MESSAGES[0])}\r\n \t\n${line(MESSAGES[1])}\n`);
    for (const chunks of [[stream], ...splits(stream)]) {
      const { ours, sdk } = both(chunks);
      expect(ours).toEqual({ messages: MESSAGES.slice(0, 2), errors: 0 });
      expect(sdk).toEqual({ messages: MESSAGES.slice(0, 2), errors: 4 });
    }
  });

  it('a bad line is one error for both, and the stream goes on', () => {
    const bad = ['not json', '{"jsonrpc":"2.0",', '"a string"', '42', 'null', '[{"jsonrpc":"2.0","id":1,"result":{}}]', '{"jsonrpc":"1.0","id":1,"result":{}}'];
    bad.push('{"jsonrpc":"2.0","id":1.5,"result":{}}', '{"jsonrpc":"2.0","id":null,"result":{}}', '{"jsonrpc":"2.0","id":true,"method":"x"}');
    bad.push('{"jsonrpc":"2.0","id":1,"result":[]}', '{"jsonrpc":"2.0","method":"x","params":[]}', '{"jsonrpc":"2.0","id":1,"error":{"code":1}}');
    bad.push('{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}', '{"jsonrpc":"2.0","id":1,"method":5}', '{"jsonrpc":"2.0","id":1}');
    for (const text of bad) {
      const stream = Buffer.from(`${line(MESSAGES[0])}${text}\n${line(MESSAGES[1])}`);
      const { ours, sdk } = both([stream]);
      expect(ours, text).toEqual({ messages: MESSAGES.slice(0, 2), errors: 1 });
      expect(sdk, text).toEqual({ messages: MESSAGES.slice(0, 2), errors: 1 });
    }
  });

  it('every line ReadBuffer accepts, ours accepts unchanged; what only ours accepts, the SDK Client rejects anyway', () => {
    const accepted = [
      ...MESSAGES,
      { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } },
      { jsonrpc: '2.0', id: -3, method: 'ping' },
      { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: 1 } } },
      { jsonrpc: '2.0', method: '' },
    ];
    for (const m of accepted) {
      const { ours, sdk } = both([Buffer.from(line(m))]);
      expect(sdk, JSON.stringify(m)).toEqual({ messages: [m], errors: 0 });
      expect(ours, JSON.stringify(m)).toEqual(sdk);
    }
    // Deliberate: ours checks the JSON-RPC envelope structurally (./json-rpc.ts), not with
    // the SDK's strict zod schemas, so these pass the reader. The SDK Protocol then matches
    // none of its message kinds and reports "Unknown message type" through onerror: a
    // Client ends up exactly where ReadBuffer's parse error leaves it.
    const onlyOurs = [
      { jsonrpc: '2.0', id: 1, result: {}, extra: 1 },
      { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'm' } },
      { jsonrpc: '2.0', id: 1, method: 'x', result: {} },
      { jsonrpc: '2.0', method: 'x', params: { _meta: 5 } },
      { jsonrpc: '2.0', id: 1e20, method: 'ping' },
    ];
    for (const m of onlyOurs) {
      const { ours, sdk } = both([Buffer.from(line(m))]);
      expect(sdk, JSON.stringify(m)).toEqual({ messages: [], errors: 1 });
      expect(ours, JSON.stringify(m)).toEqual({ messages: [m], errors: 0 });
      const kinds = [isJSONRPCResultResponse, isJSONRPCErrorResponse, isJSONRPCRequest, isJSONRPCNotification].filter((is) => is(m));
      expect(kinds, JSON.stringify(m)).toEqual([]);
    }
  });

  it('a line without its newline is not delivered yet, by either', () => {
    const { ours, sdk } = both([Buffer.from(line(MESSAGES[0]) + JSON.stringify(MESSAGES[1]))]);
    expect(ours).toEqual({ messages: [MESSAGES[0]], errors: 0 });
    expect(sdk).toEqual(ours);
  });

  it('a 5 MB line arriving in 64 KiB chunks is delivered whole by both', () => {
    const big = { jsonrpc: '2.0', id: 7, result: { text: 'ü✓'.repeat(850_000) + 'x'.repeat(900_000) } };
    const stream = Buffer.from(line(big) + line(MESSAGES[1]));
    expect(stream.length).toBeGreaterThan(5_000_000);
    const chunks: Buffer[] = [];
    for (let i = 0; i < stream.length; i += 65_536) chunks.push(stream.subarray(i, i + 65_536));
    const { ours, sdk } = both(chunks);
    expect(ours).toEqual({ messages: [big, MESSAGES[1]], errors: 0 });
    expect(sdk).toEqual(ours);
  });

  it('a line over 10 MiB is an error for both; ours goes on with the next line, the SDK transport closes', () => {
    // Deliberate difference: ReadBuffer throws on the append that overflows, and the SDK's
    // StdioClientTransport closes the connection on it; ours drops the line (an error
    // for the dropped part, another for the unparseable tail) and keeps reading.
    const huge = { jsonrpc: '2.0', id: 8, result: { text: 'x'.repeat(11 * 1024 * 1024) } };
    const stream = Buffer.from(line(huge) + line(MESSAGES[1]));
    const chunks: Buffer[] = [];
    for (let i = 0; i < stream.length; i += 65_536) chunks.push(stream.subarray(i, i + 65_536));
    const { ours, sdk } = both(chunks);
    expect(sdk).toEqual({ messages: [], errors: 1, overflow: true });
    expect(ours.messages).toEqual([MESSAGES[1]]);
    expect(ours.errors).toBe(2);
  });
});
