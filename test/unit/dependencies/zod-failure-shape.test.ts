/**
 * The SDK validates every message with zod, and most checks on the hot path
 * fail by design: the Server's transport asks "is this a result? an error?"
 * of every request before "is this a request?". zod 4.6 made a failing
 * `safeParse` return an object literal with its own `error` accessor, so each
 * failure gets a fresh closure pair V8 cannot share: those results outlive
 * young-generation collections and are promoted, and the gateway paid for it
 * in scavenges on every call (docs/performance.md, "zod"). package.json pins
 * the 4.5 line (an override, so the SDK's packages get it too); this test
 * says why if an upgrade brings the accessor back.
 */
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';

describe('zod, as the gateway runs it', () => {
  it('a failing safeParse has a plain error property, not a per-result accessor', () => {
    const result = z
      .object({ result: z.object({}) })
      .strict()
      .safeParse({ method: 'tools/call' });
    expect(result.success).toBe(false);
    const descriptor = Object.getOwnPropertyDescriptor(result, 'error');
    expect(descriptor?.get, 'see docs/performance.md ("zod") before moving to a zod whose failures carry an accessor').toBeUndefined();
    expect(descriptor?.value).toBeInstanceOf(Error);
  });

  it('the packages of the SDK get that zod, with no copy of their own', () => {
    for (const pkg of ['core', 'server', 'client', 'sdk']) {
      expect(existsSync(join('node_modules', '@modelcontextprotocol', pkg, 'node_modules', 'zod')), pkg).toBe(false);
    }
  });
});
