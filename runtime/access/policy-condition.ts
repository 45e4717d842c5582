/**
 * A policy's `when`: a CEL expression (`@bufbuild/cel`, with the standard
 * functions and the string extensions) compiled once per config: parsed,
 * checked against the facts it may read (./condition-check.ts) and planned.
 * A syntax or type error is a ConditionCompileError with its line and
 * column in the expression; the config loader refuses the config with it.
 *
 * Evaluating gives true, false, or the reason it failed (a missing
 * argument, a value of another type than the expression expects): the
 * policy decides what a failure means (./access-policy.ts).
 */
import { celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { checkCondition, ConditionCheckError } from './condition-check.js';
import type { FactBindings, FactName } from './condition-facts.js';

const ENV = celEnv({ funcs: strings });

export class ConditionCompileError extends Error {
  constructor(
    readonly reason: string,
    /** 1-based, in the expression. */
    readonly line: number,
    readonly column: number,
    multiline: boolean,
  ) {
    super(`${multiline ? `line ${line}, ` : ''}column ${column} of the expression: ${reason}`);
  }
}

/** The outcome of one evaluation: a bool, or why there is none. */
export type ConditionOutcome = boolean | { error: string };

export interface PolicyCondition {
  readonly source: string;
  /** The facts it reads: one that reads `arguments` cannot be decided for a list (./access-policy.ts). */
  readonly reads: ReadonlySet<FactName>;
  test(bindings: FactBindings): ConditionOutcome;
}

export function compileCondition(source: string): PolicyCondition {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source);
  } catch (err) {
    const at = (err as { location?: { start?: { line: number; column: number } } }).location?.start;
    const reason = (err as { rawMessage?: string }).rawMessage ?? (err as Error).message;
    throw new ConditionCompileError(`syntax error: ${reason}`, at?.line ?? 1, at?.column ?? 1, source.includes('\n'));
  }
  let reads: ReadonlySet<FactName>;
  try {
    ({ reads } = checkCondition(ENV, parsed));
  } catch (err) {
    if (!(err instanceof ConditionCheckError)) throw err;
    const { line, column } = lineAndColumn(source, err.offset);
    throw new ConditionCompileError(err.message, line, column, source.includes('\n'));
  }
  const program = plan(ENV, parsed);
  return {
    source,
    reads,
    test(bindings) {
      const value = program(bindings as Parameters<typeof program>[0]);
      if (typeof value === 'boolean') return value;
      if (isCelError(value)) return { error: value.message };
      return { error: `the expression gave ${typeof value === 'object' && value !== null ? 'a non-bool value' : typeof value}, not a bool` };
    },
  };
}

function lineAndColumn(source: string, offset: number): { line: number; column: number } {
  const before = source.slice(0, offset);
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}
