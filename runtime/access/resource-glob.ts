/**
 * The globs of `authorization.policies[].resources`, compiled with picomatch.
 * Policy names are not paths: a resource URI holds slashes that mean nothing
 * to a policy, so `*` must cross them and a `..` in a URI must not stop a
 * match (picomatch never lets `*` match a `..` segment, which would let a
 * URI such as `file:///secret/../secret/key` slip past a deny rule). The
 * slashes are hidden from picomatch, in the pattern and in the name alike.
 */
import picomatch from 'picomatch';

/** NUL: no tool name may hold it and a URI carries it only percent-encoded. */
const SLASH_STAND_IN = '\u0000';

const hideSlashes = (s: string): string => (s.includes('/') ? s.split('/').join(SLASH_STAND_IN) : s);

export type NameMatcher = (name: string) => boolean;

export function compileResourceGlobs(patterns: readonly string[]): NameMatcher {
  const match = picomatch(patterns.map(hideSlashes), { dot: true });
  return (name) => match(hideSlashes(name));
}
