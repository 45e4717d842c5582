import { describe, expect, it } from 'vitest';
import { StateSeal, StateRefusedError } from '../../../../runtime/rounds/state-seal.js';

const KEY = 'a-key-of-at-least-thirty-two-characters-000';
const NEXT = 'the-next-key-of-at-least-thirty-two-chars-111';

function refusal(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof StateRefusedError) return err.reason;
    throw err;
  }
  return undefined;
}

describe('StateSeal', () => {
  it('opens what it sealed, and nothing of the payload shows on the wire', () => {
    const seal = new StateSeal(KEY);
    const state = seal.seal({ secret: 'plain words' }, 60_000);
    expect(state).toMatch(/^g1\.[\w-]{8}\.[\w-]+$/);
    expect(Buffer.from(state.split('.')[2]!, 'base64url').toString('latin1')).not.toContain('plain words');
    expect(seal.open(state)).toEqual({ secret: 'plain words' });
  });

  it('refuses a state with any byte changed, an expired one, one of an unknown key and garbage', () => {
    const seal = new StateSeal(KEY);
    const state = seal.seal({ n: 1 }, 60_000);
    const data = Buffer.from(state.split('.')[2]!, 'base64url');
    data[20] ^= 1;
    expect(refusal(() => seal.open(`g1.${state.split('.')[1]}.${data.toString('base64url')}`))).toBe('tampered');
    expect(refusal(() => seal.open(seal.seal({ n: 1 }, 1_000, Date.now() - 5_000)))).toBe('expired');
    expect(refusal(() => new StateSeal(NEXT).open(state))).toBe('unknown_key');
    expect(refusal(() => seal.open('nonsense'))).toBe('malformed');
    expect(refusal(() => seal.open('g1.x.y.z'))).toBe('malformed');
  });

  it('during a rotation the previous key still opens what it sealed; new states use the new key', () => {
    const before = new StateSeal(KEY).seal({ n: 2 }, 60_000);
    const rotated = new StateSeal(NEXT, KEY);
    expect(rotated.open(before)).toEqual({ n: 2 });
    const after = rotated.seal({ n: 3 }, 60_000);
    expect(refusal(() => new StateSeal(KEY).open(after))).toBe('unknown_key');
    expect(new StateSeal(NEXT).open(after)).toEqual({ n: 3 });
  });
});
