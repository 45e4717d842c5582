/**
 * Newline-delimited JSON-RPC from a byte stream (the stdio transport's
 * framing). Unlike the SDK's ReadBuffer it neither re-concatenates the buffer
 * per chunk nor zod-parses each message: it checks the envelope structurally
 * (./json-rpc.ts), which is the cost that matters on the proxy path.
 */
import { StringDecoder } from 'node:string_decoder';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { toJsonRpcMessage } from './json-rpc.js';

/** A line longer than this is dropped as an error rather than buffered forever. */
const MAX_LINE_CHARS = 10 * 1024 * 1024;

export class JsonRpcLineReader {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  /** Feeds bytes; calls `onMessage` per complete message and `onError` per bad line. */
  push(chunk: Buffer, onMessage: (m: JSONRPCMessage) => void, onError: (e: Error) => void): void {
    this.pending += this.decoder.write(chunk);
    let start = 0;
    let nl: number;
    while ((nl = this.pending.indexOf('\n', start)) >= 0) {
      const line = this.pending.slice(start, this.pending.charCodeAt(nl - 1) === 13 ? nl - 1 : nl);
      start = nl + 1;
      if (line.trim() === '') continue;
      let message: JSONRPCMessage;
      try {
        message = toJsonRpcMessage(JSON.parse(line));
      } catch (err) {
        onError(err as Error);
        continue;
      }
      onMessage(message);
    }
    this.pending = start === 0 ? this.pending : this.pending.slice(start);
    if (this.pending.length > MAX_LINE_CHARS) {
      this.pending = '';
      onError(new Error(`message line exceeds ${MAX_LINE_CHARS} characters; dropped`));
    }
  }

  clear(): void {
    this.pending = '';
  }
}
