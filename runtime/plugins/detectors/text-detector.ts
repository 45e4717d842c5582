/**
 * Finding and redacting kinds of sensitive text with regular expressions
 * and, where one exists, a validation (a checksum, an entropy test). A match
 * becomes `[REDACTED:<kind>]`; what was found is tallied by kind, never kept.
 * UUIDs are everywhere and must never be taken for anything: the patterns
 * cannot match their shape (cards and phone numbers need other groupings,
 * test/unit/runtime/plugins/plugins-units.test.ts), and a random-looking value is never one.
 */

export interface Detector {
  kind: string;
  /** Global (`g`); a named kind's match. */
  pattern: RegExp;
  /** The capture group that is the sensitive part (it must end the match); absent: the whole match. */
  group?: number;
  /** A character every match holds: a text without it is not scanned (most texts, for a pattern that is slow to fail). */
  needs?: string;
  /** Whether a match is the real thing (a checksum, an entropy test), given the match's groups. */
  accept?(secret: string, groups: ReadonlyArray<string | undefined>): boolean;
}

/** Counts by kind of what was found. */
export type Tally = Record<string, number>;

export const redactedMarker = (kind: string): string => `[REDACTED:${kind}]`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `text` with every accepted match of every detector (in order) replaced; `tally` counts them. */
export function redactText(text: string, detectors: readonly Detector[], tally: Tally): string {
  let out = text;
  for (const d of detectors) {
    if (d.needs !== undefined && !out.includes(d.needs)) continue;
    out = out.replace(d.pattern, (...args: unknown[]) => {
      const match = args[0] as string;
      // The groups come before the match's offset, the first number among the arguments.
      const groups = args.slice(
        0,
        args.findIndex((a, i) => i > 0 && typeof a === 'number'),
      ) as Array<string | undefined>;
      const secret = d.group === undefined ? match : groups[d.group];
      if (!secret || !match.endsWith(secret)) return match;
      if (d.accept && !d.accept(secret, groups)) return match;
      tally[d.kind] = (tally[d.kind] ?? 0) + 1;
      return match.slice(0, match.length - secret.length) + redactedMarker(d.kind);
    });
  }
  return out;
}

export const isUuid = (text: string): boolean => UUID.test(text);
