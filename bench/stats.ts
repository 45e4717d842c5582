/** The median (the mean of the two middle values for an even count; NaN for none). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * A percentile bootstrap interval for the median of `xs`: resamples `xs`
 * with replacement `resamples` times and takes the `level` middle share of
 * the resamples' medians. Seeded, so that one set of phases always gives
 * the same interval.
 */
export function medianInterval(xs: readonly number[], level = 0.95, resamples = 4000, seed = 1): [number, number] {
  if (xs.length === 0) return [NaN, NaN];
  const random = mulberry32(seed);
  const medians = Array.from({ length: resamples }, () => median(Array.from(xs, () => xs[Math.floor(random() * xs.length)]!))).sort((a, b) => a - b);
  const cut = Math.floor(((1 - level) / 2) * resamples);
  return [medians[cut]!, medians[resamples - 1 - cut]!];
}

/** A small seeded generator of numbers in [0, 1) (mulberry32). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
