/**
 * The request metadata headers of MCP 2026-07-28 (streamable-http.mdx,
 * "Request Metadata"), checked against the revision's own examples and rules.
 */
import { describe, expect, it } from 'vitest';
import { bodyDerivedHeaders, encodeHeaderValue, paramHeaders, scanHeaderParams, type HeaderParam } from '../../../../runtime/transports/mcp-request-headers.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'ExampleClient', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

describe('encodeHeaderValue (Value Encoding)', () => {
  it.each([
    ['us-west1', 'us-west1'],
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
  ])('the spec table: %j → %s', (value, encoded) => {
    expect(encodeHeaderValue(value)).toBe(encoded);
  });

  it('keeps interior spaces and tabs, encodes control characters and an empty value', () => {
    expect(encodeHeaderValue('a b\tc')).toBe('a b\tc');
    expect(encodeHeaderValue('a\u0001b')).toBe(`=?base64?${Buffer.from('a\u0001b').toString('base64')}?=`);
    expect(encodeHeaderValue('')).toBe('=?base64??=');
  });
});

describe('bodyDerivedHeaders (Standard Request Headers)', () => {
  it('tools/call: protocol version, method and the tool name', () => {
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_weather', arguments: {}, _meta: ENVELOPE } };
    expect(bodyDerivedHeaders(message)).toEqual({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_weather' });
  });

  it('resources/read names the URI, prompts/get the prompt; a non-ASCII name is encoded', () => {
    const read = { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'file:///projects/myapp/config.json', _meta: ENVELOPE } };
    expect(bodyDerivedHeaders(read)?.['mcp-name']).toBe('file:///projects/myapp/config.json');
    const prompt = { jsonrpc: '2.0', id: 3, method: 'prompts/get', params: { name: 'grüße', _meta: ENVELOPE } };
    expect(bodyDerivedHeaders(prompt)?.['mcp-name']).toBe(`=?base64?${Buffer.from('grüße').toString('base64')}?=`);
  });

  it('a method without a name field has no Mcp-Name', () => {
    const list = { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: ENVELOPE } };
    expect(bodyDerivedHeaders(list)).toEqual({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
  });

  it('nothing for a 2025 request, a notification or a response', () => {
    expect(bodyDerivedHeaders({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } })).toBeUndefined();
    expect(bodyDerivedHeaders({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: ENVELOPE } })).toBeUndefined();
    expect(bodyDerivedHeaders({ jsonrpc: '2.0', id: 1, result: {} })).toBeUndefined();
  });
});

describe('scanHeaderParams (x-mcp-header constraints)', () => {
  it('finds the spec example and nested properties', () => {
    const scan = scanHeaderParams({
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        query: { type: 'string' },
        opts: { type: 'object', properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } } },
      },
    });
    expect(scan).toEqual({
      valid: true,
      params: [
        { path: ['region'], name: 'Region' },
        { path: ['opts', 'dry'], name: 'Dry-Run' },
      ],
    });
  });

  it.each([
    ['an empty name', { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': '' } } }],
    ['a name that is no token', { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Bad Name' } } }],
    ['a number property', { type: 'object', properties: { a: { type: 'number', 'x-mcp-header': 'A' } } }],
    ['an object property', { type: 'object', properties: { a: { type: 'object', 'x-mcp-header': 'A' } } }],
    [
      'a name repeated in another case',
      { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'X' }, b: { type: 'string', 'x-mcp-header': 'x' } } },
    ],
    ['a property under items', { type: 'object', properties: { a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } } }],
    ['a property under anyOf', { type: 'object', anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }],
    ['a property under $defs', { type: 'object', $defs: { t: { type: 'string', 'x-mcp-header': 'A' } } }],
    ['the root itself', { type: 'string', 'x-mcp-header': 'A' }],
  ])('%s makes the tool invalid', (_why, schema) => {
    expect(scanHeaderParams(schema).valid).toBe(false);
  });
});

describe('paramHeaders (Client Behavior steps 3-5)', () => {
  const params: HeaderParam[] = [
    { path: ['region'], name: 'Region' },
    { path: ['count'], name: 'Count' },
    { path: ['flag'], name: 'Flag' },
    { path: ['opts', 'note'], name: 'Note' },
  ];

  it('mirrors strings, integers and booleans, encoding what needs it', () => {
    expect(paramHeaders(params, { region: 'us-west1', count: -7, flag: false, opts: { note: 'Hello, 世界' } })).toEqual({
      'Mcp-Param-Region': 'us-west1',
      'Mcp-Param-Count': '-7',
      'Mcp-Param-Flag': 'false',
      'Mcp-Param-Note': '=?base64?SGVsbG8sIOS4lueVjA==?=',
    });
  });

  it('omits a parameter that is absent or null, and a value that is no primitive', () => {
    expect(paramHeaders(params, { region: null, flag: { not: 'primitive' } })).toEqual({});
    expect(paramHeaders(params, undefined)).toEqual({});
    expect(paramHeaders(params, { count: 2 ** 60 })).toEqual({});
  });
});
