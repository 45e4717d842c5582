import { describe, expect, it } from 'vitest';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import type { IncomingHttpHeaders } from 'node:http';
import { MODERN_CLASSIFICATION, wellFormedModernRequest } from '../../../../api/mcp/well-formed-modern-request.js';

const V = '2026-07-28';
const envelope = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
  ...extra,
});
const call = (over: Record<string, unknown> = {}, meta: Record<string, unknown> = envelope()) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: 'hi' }, _meta: meta },
  ...over,
});
const headers = (over: IncomingHttpHeaders = {}): IncomingHttpHeaders => ({
  'mcp-protocol-version': V,
  'mcp-method': 'tools/call',
  'mcp-name': 'echo',
  ...over,
});

/** What the SDK's classifier says of the same request. */
const sdk = (body: unknown, h: IncomingHttpHeaders) =>
  classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: h['mcp-protocol-version'] as string | undefined,
    mcpMethodHeader: h['mcp-method'] as string | undefined,
    mcpNameHeader: h['mcp-name'] as string | undefined,
    body,
  });

// Each case: a body and headers. `fast: true` cases must be recognised; the others must be left to the classifier.
const cases: Array<{ name: string; body: unknown; headers: IncomingHttpHeaders; fast: boolean }> = [
  { name: 'a tools/call', body: call(), headers: headers(), fast: true },
  {
    name: 'a string id, no client info, a log level, a progress token',
    body: call(
      { id: 'a-1' },
      { ...envelope({ 'io.modelcontextprotocol/logLevel': 'debug', progressToken: 'p' }), 'io.modelcontextprotocol/clientInfo': undefined },
    ),
    headers: headers(),
    fast: true,
  },
  {
    name: 'tools/list without headers beyond the version',
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope() } },
    headers: { 'mcp-protocol-version': V },
    fast: true,
  },
  {
    name: 'server/discover without any header',
    body: { jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: envelope() } },
    headers: {},
    fast: true,
  },
  { name: 'a batch', body: [call()], headers: headers(), fast: false },
  { name: 'a response', body: { jsonrpc: '2.0', id: 7, result: {} }, headers: headers(), fast: false },
  { name: 'a notification', body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta: envelope() } }, headers: headers(), fast: false },
  { name: 'initialize', body: call({ method: 'initialize' }), headers: headers({ 'mcp-method': 'initialize' }), fast: false },
  { name: 'a 2025-11-25 request', body: call({}, { progressToken: 1 }), headers: {}, fast: false },
  {
    name: 'another revision in the envelope',
    body: call({}, envelope({ 'io.modelcontextprotocol/protocolVersion': '2027-01-01' })),
    headers: headers({ 'mcp-protocol-version': '2027-01-01' }),
    fast: false,
  },
  { name: 'a version header that disagrees', body: call(), headers: headers({ 'mcp-protocol-version': '2025-11-25' }), fast: false },
  { name: 'a method header that disagrees', body: call(), headers: headers({ 'mcp-method': 'tools/list' }), fast: false },
  { name: 'a version header with whitespace', body: call(), headers: headers({ 'mcp-protocol-version': ` ${V}` }), fast: false },
  { name: 'an extra top-level member', body: call({ extra: 1 }), headers: headers(), fast: false },
  { name: 'a fractional id', body: call({ id: 1.5 }), headers: headers(), fast: false },
  { name: 'a null id', body: call({ id: null }), headers: headers(), fast: false },
  { name: 'jsonrpc 1.0', body: call({ jsonrpc: '1.0' }), headers: headers(), fast: false },
  { name: 'params that are an array', body: call({ params: [] }), headers: headers(), fast: false },
  { name: 'no capabilities', body: call({}, envelope({ 'io.modelcontextprotocol/clientCapabilities': undefined })), headers: headers(), fast: false },
  {
    name: 'capabilities that are no object',
    body: call({}, envelope({ 'io.modelcontextprotocol/clientCapabilities': 'all' })),
    headers: headers(),
    fast: false,
  },
  { name: 'client info without a version', body: call({}, envelope({ 'io.modelcontextprotocol/clientInfo': { name: 'c' } })), headers: headers(), fast: false },
  { name: 'an unknown log level', body: call({}, envelope({ 'io.modelcontextprotocol/logLevel': 'loud' })), headers: headers(), fast: false },
  { name: 'a fractional progress token', body: call({}, envelope({ progressToken: 0.5 })), headers: headers(), fast: false },
  { name: "2025-11-25's related task", body: call({}, envelope({ 'io.modelcontextprotocol/related-task': { taskId: 't' } })), headers: headers(), fast: false },
];

/** JSON's view of a body: the classifier and this check only ever see parsed JSON (no undefined members). */
const asJson = (body: unknown) => JSON.parse(JSON.stringify(body)) as unknown;

describe('a well-formed 2026-07-28 request, recognised without the classifier', () => {
  for (const c of cases) {
    it(`${c.fast ? 'recognises' : 'leaves to the classifier'}: ${c.name}`, () => {
      const body = asJson(c.body);
      const fast = wellFormedModernRequest(body, c.headers);
      if (!c.fast) {
        expect(fast).toBeUndefined();
        return;
      }
      expect(fast).toBe(body);
      // Whatever is recognised, the SDK's classifier routes the same way, as the same revision.
      const outcome = sdk(body, c.headers);
      expect(outcome).toMatchObject({ kind: 'modern', messageKind: 'request', classification: MODERN_CLASSIFICATION });
    });
  }
});
