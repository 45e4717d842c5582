/** The bench's interval for a median: deterministic, around the median, narrowing as phases are added. */
import { describe, expect, it } from 'vitest';
import { median, medianInterval } from '../../../bench/stats.js';

describe('medianInterval', () => {
  const ratios = [1.02, 0.98, 1.1, 1.05, 0.95, 1.01, 1.07, 0.99, 1.03, 1.0];

  it('brackets the median, and the same phases always give the same interval', () => {
    const [low, high] = medianInterval(ratios);
    expect(low).toBeLessThanOrEqual(median(ratios));
    expect(high).toBeGreaterThanOrEqual(median(ratios));
    expect(low).toBeLessThan(high);
    expect(medianInterval(ratios)).toEqual([low, high]);
  });

  it('narrows with more phases of the same spread, and with a lower level', () => {
    const width = ([low, high]: [number, number]) => high - low;
    const more = Array.from({ length: 8 }, () => ratios).flat();
    expect(width(medianInterval(more))).toBeLessThan(width(medianInterval(ratios)));
    expect(width(medianInterval(ratios, 0.5))).toBeLessThan(width(medianInterval(ratios, 0.95)));
  });

  it('has nothing to say of no phases, and one phase is its own interval', () => {
    expect(medianInterval([]).every(Number.isNaN)).toBe(true);
    expect(medianInterval([1.2])).toEqual([1.2, 1.2]);
  });
});
