import { describe, expect, it } from 'vitest';
import { JsonRpcLineReader } from '../../../../runtime/transports/line-reader.js';

function feed(chunks: Buffer[]) {
  const reader = new JsonRpcLineReader();
  const messages: unknown[] = [];
  const errors: Error[] = [];
  for (const c of chunks)
    reader.push(
      c,
      (m) => messages.push(m),
      (e) => errors.push(e),
    );
  return { messages, errors };
}

describe('JsonRpcLineReader (stdio framing)', () => {
  it('joins a message split across chunks, even inside a multi-byte character', () => {
    const line = Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"text":"héllo ✓"}}\n');
    const cut = line.indexOf(Buffer.from('✓')) + 1; // in the middle of the 3-byte check mark
    const { messages, errors } = feed([line.subarray(0, cut), line.subarray(cut)]);
    expect(errors).toEqual([]);
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 1, result: { text: 'héllo ✓' } }]);
  });

  it('reads several messages per chunk, CRLF endings and blank lines', () => {
    const { messages } = feed([Buffer.from('{"jsonrpc":"2.0","method":"a"}\r\n\n{"jsonrpc":"2.0","method":"b"}\n{"jsonrpc":"2.0",')]);
    expect(messages).toEqual([
      { jsonrpc: '2.0', method: 'a' },
      { jsonrpc: '2.0', method: 'b' },
    ]);
  });

  it('reports a bad line and goes on with the next', () => {
    const { messages, errors } = feed([Buffer.from('not json\n{"jsonrpc":"1.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n')]);
    expect(errors).toHaveLength(2);
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
  });
});
