import { describe, expect, it } from 'vitest';
import { checkStandardHeaders, decodeHeaderValue, paramHeaders } from '../../../../../api/mcp/stateless/standard-headers.js';
import { ProtocolRefusedError } from '../../../../../schemas/errors.js';

const call = (params: Record<string, unknown>, method = 'tools/call') => ({ jsonrpc: '2.0' as const, id: 3, method, params });
const base = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' };
const schema = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    opts: { type: 'object', properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry' } } },
    list: { type: 'array', items: { type: 'object', properties: { no: { type: 'string', 'x-mcp-header': 'No' } } } },
  },
};
const refusal = (fn: () => void) => {
  try {
    fn();
  } catch (err) {
    return err as ProtocolRefusedError;
  }
  return undefined;
};

describe('2026-07-28 standard headers', () => {
  it('decodes the base64 sentinel, strips optional whitespace, refuses a broken sentinel', () => {
    expect(decodeHeaderValue('us-west1')).toBe('us-west1');
    expect(decodeHeaderValue(' =?base64?SGVsbG8sIOS4lueVjA==?= ')).toBe('Hello, 世界');
    expect(decodeHeaderValue('=?base64?not base64?=')).toBeUndefined();
    expect(decodeHeaderValue('=?base64?/w==?=')).toBeUndefined(); // not UTF-8
  });

  it('finds x-mcp-header declarations only through properties, and caches them per schema', () => {
    expect(paramHeaders(schema)).toEqual([
      { name: 'Region', path: ['region'] },
      { name: 'Dry', path: ['opts', 'dry'] },
    ]);
    expect(paramHeaders(schema)).toBe(paramHeaders(schema));
  });

  it('accepts headers that mirror the body, and refuses every disagreement with -32020 and 400', () => {
    const args = { region: 'eu', opts: { dry: true } };
    const ok = { ...base, 'mcp-name': 'x', 'mcp-param-region': 'eu', 'mcp-param-dry': 'true' };
    expect(refusal(() => checkStandardHeaders(ok, call({ name: 'x', arguments: args }), () => schema))).toBeUndefined();
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ ...ok, 'mcp-name': 'y' }, /Mcp-Name header names "y"/],
      [{ ...ok, 'mcp-param-region': 'us' }, /Mcp-Param-Region/],
      [{ ...ok, 'mcp-param-dry': 'false' }, /Mcp-Param-Dry/],
      [{ ...base, 'mcp-name': 'x', 'mcp-param-dry': 'true' }, /not mirrored in the required Mcp-Param-Region/],
      [{ 'mcp-method': 'tools/call', 'mcp-name': 'x' }, /MCP-Protocol-Version header is absent/],
      [{ 'mcp-protocol-version': '2026-07-28', 'mcp-name': 'x' }, /Mcp-Method header is absent/],
      [{ ...base }, /Mcp-Name header is absent/],
    ];
    for (const [headers, message] of cases) {
      const err = refusal(() => checkStandardHeaders(headers, call({ name: 'x', arguments: args }), () => schema));
      expect(err, JSON.stringify(headers)).toBeInstanceOf(ProtocolRefusedError);
      expect(err).toMatchObject({ rpcCode: -32020, httpStatus: 400, requestId: 3 });
      expect(err!.message).toMatch(message);
    }
  });

  it('mirrors a resource URI in Mcp-Name, base64 when it is not plain ASCII; lists need no name', () => {
    const uri = 'file:///tmp/ünïcode.txt';
    const encoded = `=?base64?${Buffer.from(uri).toString('base64')}?=`;
    const read = call({ uri }, 'resources/read');
    expect(refusal(() => checkStandardHeaders({ ...base, 'mcp-method': 'resources/read', 'mcp-name': encoded }, read, () => undefined))).toBeUndefined();
    expect(refusal(() => checkStandardHeaders({ ...base, 'mcp-method': 'tools/list' }, call({}, 'tools/list'), () => undefined))).toBeUndefined();
  });
});
