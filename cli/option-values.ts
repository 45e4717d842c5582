/**
 * What an option's value may be, checked by clipanion while it parses the
 * command line (typanion validators): a bad value is a usage error there,
 * which run-cli.ts turns into exit code 2 for every command of `gateway` and
 * `gateway-client`, one-shot or in the REPL. Bounds come from the API's own
 * schemas where the value is sent to the server, so the client refuses what
 * the server would.
 */
import * as t from 'typanion';
import { parseIsoTimestamp } from '../api/management/iso-time.js';

/** An integer, within the bounds of an API schema's integer when given (`{ minimum, maximum }`). */
export function integerValue(bounds: { minimum?: number; maximum?: number } = {}): t.StrictValidator<unknown, number> {
  return t.cascade(t.isNumber(), [t.isInteger(), ...rangeChecks(bounds)]);
}

/** Seconds: a number (fractions allowed), at least `minimum` (default: above zero). */
export function secondsValue(opts: { minimum?: number } = {}): t.StrictValidator<unknown, number> {
  if (opts.minimum !== undefined) return t.cascade(t.isNumber(), [t.isAtLeast(opts.minimum)]);
  return t.cascade(t.isNumber(), [check((n: number) => (n > 0 ? null : `expected more than 0 seconds (got ${n})`))]);
}

/** One of a fixed list of words. */
export function oneOf<const T extends string>(values: readonly T[]): t.StrictValidator<unknown, T> {
  return t.isEnum(values);
}

/** An ISO 8601 date or date-time, as the API's `since` accepts it (api/management/iso-time.ts); the text is kept. */
export const isoTimestampValue = acceptedBy((value) =>
  parseIsoTimestamp(value) === undefined ? `expected an ISO 8601 date or date-time such as 2026-01-31T08:00:00Z (got "${value}")` : null,
);

/** A value a `problem` function accepts (it returns null, or why not). */
export function acceptedBy(problem: (value: string) => string | null): t.StrictValidator<unknown, string> {
  return t.cascade(t.isString(), [check(problem)]);
}

/** A typanion test from a `problem` function (null when the value is fine, else why not). */
function check<T>(problem: (value: T) => string | null): (value: T, state?: t.ValidationState) => boolean {
  return (value, state) => {
    const why = problem(value);
    // The "path: message" shape is what clipanion reads back out of typanion's errors.
    if (why !== null) state?.errors?.push(`${state.p ?? '.'}: ${why}`);
    return why === null;
  };
}

function rangeChecks({ minimum, maximum }: { minimum?: number; maximum?: number }): Array<t.LooseValidator<number, number>> {
  if (minimum !== undefined && maximum !== undefined) return [t.isInInclusiveRange(minimum, maximum)];
  if (minimum !== undefined) return [t.isAtLeast(minimum)];
  if (maximum !== undefined) return [t.isAtMost(maximum)];
  return [];
}
