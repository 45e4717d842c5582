import { describe, expect, it } from 'vitest';
import { negotiationFor, protocolOf, STDIO_PROBE_MS } from '../../../../runtime/backends/negotiation.js';
import { ToolHeaderParams } from '../../../../runtime/backends/tool-header-params.js';
import type { BackendSpec } from '../../../../schemas/config.js';

const stdio = (extra: Partial<BackendSpec> = {}) => ({ type: 'stdio', command: 'x', ...extra }) as BackendSpec;
const http = (extra: Partial<BackendSpec> = {}) => ({ type: 'streamable-http', url: 'http://x', ...extra }) as BackendSpec;

describe('negotiationFor (config `protocol`)', () => {
  it('auto by default: a short probe over stdio (silence is a 2025 server), the connect timeout over HTTP (silence is an outage)', () => {
    expect(negotiationFor(stdio(), 30_000)).toEqual({ mode: 'auto', probe: { timeoutMs: STDIO_PROBE_MS } });
    expect(negotiationFor(stdio(), 1000)).toEqual({ mode: 'auto', probe: { timeoutMs: 1000 } });
    expect(negotiationFor(http(), 30_000)).toEqual({ mode: 'auto', probe: { timeoutMs: 30_000 } });
  });

  it('2025-11-25 initializes without asking; 2026-07-28 pins, with the whole connect timeout to answer', () => {
    expect(negotiationFor(http({ protocol: '2025-11-25' } as Partial<BackendSpec>), 30_000)).toEqual({ mode: 'legacy' });
    expect(negotiationFor(stdio({ protocol: '2026-07-28' } as Partial<BackendSpec>), 30_000)).toEqual({
      mode: { pin: '2026-07-28' },
      probe: { timeoutMs: 30_000 },
    });
  });

  it('HTTP+SSE is a 2025 transport', () => {
    const sse = { type: 'sse', url: 'http://x' } as BackendSpec;
    expect(protocolOf(sse)).toBe('2025-11-25');
    expect(negotiationFor(sse, 30_000)).toEqual({ mode: 'legacy' });
  });
});

describe('ToolHeaderParams', () => {
  const region = { name: 'region', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } };
  const plain = { name: 'plain', inputSchema: { type: 'object', properties: { a: { type: 'string' } } } };
  const broken = { name: 'broken', inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } } };

  it('keeps valid tools, leaves out (and names) a tool whose declaration is invalid', () => {
    const invalid: string[] = [];
    const params = new ToolHeaderParams();
    expect(params.load([region, plain, broken], (tool) => invalid.push(tool))).toEqual([region, plain]);
    expect(invalid).toEqual(['broken']);
  });

  it('headers only for a tool that declares them, and a value that is there', () => {
    const params = new ToolHeaderParams();
    params.load([region, plain], () => undefined);
    expect(params.headersFor({ name: 'region', arguments: { region: 'eu' } })).toEqual({ 'Mcp-Param-Region': 'eu' });
    expect(params.headersFor({ name: 'region', arguments: {} })).toBeUndefined();
    expect(params.headersFor({ name: 'plain', arguments: { a: 'x' } })).toBeUndefined();
    // A new list replaces the old one.
    params.load([plain], () => undefined);
    expect(params.headersFor({ name: 'region', arguments: { region: 'eu' } })).toBeUndefined();
  });
});
