/**
 * The table of requests a server is handling: ids unique over time, an id
 * whose entry is gone never reaching a later entry of the same slot, slots
 * reused rather than the arrays growing.
 */
import { describe, expect, it } from 'vitest';
import { SlotTable } from '../../../runtime/slot-table.js';

describe('SlotTable', () => {
  it('holds values under ids, takes them once, and counts what it holds', () => {
    const t = new SlotTable<string>();
    const a = t.add('a');
    const b = t.add('b');
    expect(a).not.toBe(b);
    expect([t.get(a), t.get(b), t.size]).toEqual(['a', 'b', 2]);
    expect(t.take(a)).toBe('a');
    expect([t.get(a), t.take(a), t.size]).toEqual([undefined, undefined, 1]);
  });

  it('reuses a freed slot under a new id, and the old id finds nothing there', () => {
    const t = new SlotTable<string>();
    const first = t.add('first');
    t.take(first);
    const second = t.add('second');
    expect(second).not.toBe(first);
    expect(second % 2 ** 21).toBe(first % 2 ** 21); // the same slot
    expect(t.get(first)).toBeUndefined();
    expect(t.take(first)).toBeUndefined();
    expect(t.get(second)).toBe('second');
  });

  it('never hands out an id twice across many uses of few slots', () => {
    const t = new SlotTable<number>();
    const seen = new Set<number>();
    const held: number[] = [];
    for (let i = 0; i < 5000; i++) {
      const id = t.add(i);
      expect(seen.has(id)).toBe(false);
      seen.add(id);
      held.push(id);
      if (held.length > 3) t.take(held.shift()!);
    }
    expect(t.size).toBe(3);
    expect(held.map((id) => t.get(id))).toEqual([4997, 4998, 4999]);
  });

  it('answers ids it never made (other numbers, not integers) with nothing', () => {
    const t = new SlotTable<string>();
    t.add('x');
    const made = t.add('y');
    expect(t.get(made)).toBe('y');
    for (const id of [0, 1, -1, made + 2 ** 21, 2 ** 21 + 5, 1.5, Number.NaN, 2 ** 60]) expect(t.get(id)).toBeUndefined();
  });

  it('clear() lets go of every value and keeps the slots for later', () => {
    const t = new SlotTable<string>();
    const ids = [t.add('a'), t.add('b'), t.add('c')];
    t.clear();
    expect(t.size).toBe(0);
    expect(ids.map((id) => t.get(id))).toEqual([undefined, undefined, undefined]);
    const again = t.add('d');
    expect(ids.map((id) => id % 2 ** 21)).toContain(again % 2 ** 21);
    expect(t.get(again)).toBe('d');
  });
});
