import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { Reconfigurables } from '../../../app/reconfigurable.js';
import type { GatewayConfig } from '../../../schemas/config.js';

const config = (port: number, ttl: number) => ({ server: { port, session_ttl: ttl } }) as unknown as GatewayConfig;

describe('Reconfigurables', () => {
  it('applies every slice in registration order, with the slice before, and reports which changed', async () => {
    const seen: string[] = [];
    const features = new Reconfigurables(pino({ enabled: false }))
      .register({ name: 'port', select: (c) => c.server.port, apply: (s, before) => void seen.push(`port ${before}→${s}`) })
      .register({ name: 'ttl', select: (c) => c.server.session_ttl, apply: (s, before) => void seen.push(`ttl ${before}→${s}`) });
    features.prime(config(1, 10));
    expect(seen).toEqual([]);
    expect(await features.apply(config(2, 10))).toEqual({ changed: ['port'], visible: false });
    expect(seen).toEqual(['port 1→2', 'ttl 10→10']);
    expect((await features.apply(config(2, 20))).changed).toEqual(['ttl']);
  });

  it('a feature that says clients see something else makes the reload visible; one that fails keeps its slice and does not stop the others', async () => {
    let fail = true;
    const applied: number[] = [];
    const features = new Reconfigurables(pino({ enabled: false }))
      .register({
        name: 'flaky',
        select: (c) => c.server.port,
        apply: () => {
          if (fail) throw new Error('not now');
        },
      })
      .register({ name: 'policies', select: (c) => c.server.session_ttl, apply: (s, before) => s !== before })
      .register({ name: 'after', select: (c) => c.server.port, apply: (s) => void applied.push(s) });
    features.prime(config(1, 10));
    expect(await features.apply(config(2, 10))).toEqual({ changed: ['flaky', 'after'], visible: false });
    expect(applied).toEqual([2]);
    fail = false;
    // The failed slice was not taken: it still differs from what is in effect.
    expect(await features.apply(config(2, 30))).toEqual({ changed: ['flaky', 'policies'], visible: true });
  });
});
