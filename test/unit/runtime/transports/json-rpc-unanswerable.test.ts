/**
 * unanswerableReason() must name exactly the requests the SDK's Protocol
 * would drop without an answer: a request its strict schema does not accept.
 * Checked against the SDK's own schema, request by request.
 */
import { describe, expect, it } from 'vitest';
import { isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { unanswerableReason } from '../../../../runtime/transports/json-rpc.js';

const base = { jsonrpc: '2.0', id: 1, method: 'tools/call' } as const;

const REQUESTS: Array<Record<string, unknown>> = [
  { ...base },
  { ...base, params: { name: 'x' } },
  { ...base, params: { _meta: {} } },
  { ...base, params: { _meta: { progressToken: 'p' } } },
  { ...base, params: { _meta: { progressToken: 7 } } },
  { ...base, params: { _meta: { progressToken: 7.5 } } },
  { ...base, params: { _meta: { progressToken: {} } } },
  { ...base, params: { _meta: { progressToken: null } } },
  { ...base, params: { _meta: { progressToken: [1] } } },
  { ...base, params: { _meta: { progressToken: true } } },
  { ...base, params: { _meta: 'x' } },
  { ...base, params: { _meta: 5 } },
  { ...base, params: { _meta: null } },
  { ...base, params: { _meta: [1] } },
  { ...base, params: { _meta: { other: { deep: 1 } } } },
  { ...base, params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } } },
  { ...base, params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 5 } } } },
  { ...base, params: { _meta: { 'io.modelcontextprotocol/related-task': 'x' } } },
  { ...base, extra: 1 },
  { ...base, result: {} },
  { ...base, id: 'a', params: {} },
];

describe('requests the SDK would leave unanswered', () => {
  it.each(REQUESTS.map((m) => [JSON.stringify(m), m] as const))('%s', (_text, message) => {
    const reason = unanswerableReason(message);
    expect(reason === undefined).toBe(isJSONRPCRequest(message));
    if (reason) expect(reason.message).toMatch(/^Invalid (params|Request): /);
  });

  it('a notification is never "unanswerable": nobody waits for its answer', () => {
    expect(unanswerableReason({ jsonrpc: '2.0', method: 'notifications/x', params: { _meta: 5 } })).toBeUndefined();
  });
});
