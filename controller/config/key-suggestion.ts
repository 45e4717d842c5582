/**
 * "did you mean `type`?" for an unknown config key: the known key closest to
 * it, when it is close enough to be a typo (a letter missing, doubled,
 * changed or two letters swapped) rather than a different word.
 */

/** The known key a typo most likely meant, or undefined when none is close. */
export function closestKey(unknown: string, known: Iterable<string>): string | undefined {
  const typed = unknown.toLowerCase();
  // Short keys allow one slip, longer ones one more per three letters: `connect` → `connect_s`, but not `url` → `cwd`.
  const allowed = Math.max(1, Math.floor(typed.length / 3));
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const distance = editDistance(typed, key.toLowerCase());
    if (distance <= allowed && (!best || distance < best.distance)) best = { key, distance };
  }
  return best?.key;
}

/**
 * Optimal string alignment distance: insertions, deletions, substitutions and
 * swaps of two neighbours each count 1 (`hots` is one slip from `host`).
 * Config keys are short, so the full table is cheap.
 */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
