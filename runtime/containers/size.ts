/** Sizes in config (`512m`, `1g`, `256k`, plain bytes) as bytes; binary units, like the container CLIs. */
import { SIZE_PATTERN } from '../../schemas/config.js';

const UNIT: Record<string, number> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

export function parseSize(text: string): number {
  if (!new RegExp(SIZE_PATTERN).test(text)) throw new Error(`not a size: ${JSON.stringify(text)} (expected e.g. 512m, 1g, 256k)`);
  const m = /^([0-9.]+)([a-z]?)$/i.exec(text)!;
  return Math.floor(Number(m[1]) * UNIT[m[2]!.toLowerCase()]!);
}
