/**
 * The load-time check of a `when` expression, over its parsed form: every
 * name is a fact (./condition-facts.ts) or a macro's variable, every field
 * of a known fact exists, every function exists with an overload that fits
 * the argument types known here, `==` does not compare two kinds of value
 * that can never be equal, and the whole is a bool. What cannot be known
 * before a call (`arguments.x`, `caller.claims.x`) is `dyn` and passes.
 *
 * `@bufbuild/cel` has a type checker but does not export it; this one uses
 * only its public parts: the parsed expression, its source positions and the
 * standard functions' signatures (CelEnv.funcs).
 */
import type { CelEnv, parse } from '@bufbuild/cel';
import { FACT_NAMES, FACT_TYPES, type FactName, type FactType } from './condition-facts.js';

export class ConditionCheckError extends Error {
  constructor(
    message: string,
    /** 0-based offset in the expression. */
    readonly offset: number,
  ) {
    super(message);
  }
}

type Parsed = ReturnType<typeof parse>;
type Expr = Parsed['expr'];

const NUMERIC = new Set(['int', 'uint', 'double']);
const LOGIC = new Set(['_&&_', '_||_', '@not_strictly_false']);

/** What a checked expression is and which facts it reads. */
export interface CheckedCondition {
  reads: ReadonlySet<FactName>;
}

export function checkCondition(env: CelEnv, parsed: Parsed): CheckedCondition {
  const checker = new Checker(env, parsed);
  const type = checker.typeOf(parsed.expr, new Map());
  if (!fits(type, 'bool')) throw new ConditionCheckError(`must be a bool (true: the policy applies), not ${describe(type)}`, checker.offset(parsed.expr));
  return { reads: checker.reads };
}

class Checker {
  readonly reads = new Set<FactName>();

  constructor(
    private readonly env: CelEnv,
    private readonly parsed: Parsed,
  ) {}

  offset(e: Expr): number {
    return this.parsed.sourceInfo?.positions[e.id.toString()] ?? 0;
  }

  private fail(e: Expr, message: string): never {
    throw new ConditionCheckError(message, this.offset(e));
  }

  typeOf(e: Expr, scope: ReadonlyMap<string, FactType>): FactType {
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        return constantType(k.value.constantKind.case);
      case 'identExpr': {
        const local = scope.get(k.value.name);
        if (local !== undefined) return local;
        if (!isFact(k.value.name)) this.fail(e, `unknown name \`${k.value.name}\` (the facts are ${FACT_NAMES.join(', ')})`);
        this.reads.add(k.value.name);
        return FACT_TYPES[k.value.name];
      }
      case 'selectExpr': {
        const type = this.field(e, this.typeOf(k.value.operand!, scope), k.value.field);
        return k.value.testOnly ? 'bool' : type;
      }
      case 'callExpr':
        return this.call(e, k.value.function, k.value.target, k.value.args, scope);
      case 'listExpr':
        for (const el of k.value.elements) this.typeOf(el, scope);
        return 'list';
      case 'structExpr':
        if (k.value.messageName !== '') this.fail(e, `messages (${k.value.messageName}) are not available`);
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === 'mapKey') this.typeOf(entry.keyKind.value, scope);
          this.typeOf(entry.value!, scope);
        }
        return 'map';
      case 'comprehensionExpr': {
        const c = k.value;
        this.typeOf(c.iterRange!, scope);
        const inner = new Map(scope);
        inner.set(c.iterVar, 'dyn');
        if (c.iterVar2) inner.set(c.iterVar2, 'dyn');
        inner.set(c.accuVar, this.typeOf(c.accuInit!, scope));
        this.typeOf(c.loopCondition!, inner);
        this.typeOf(c.loopStep!, inner);
        return this.typeOf(c.result!, inner);
      }
      default:
        return this.fail(e, 'is not a complete expression');
    }
  }

  private field(e: Expr, operand: FactType, field: string): FactType {
    if (typeof operand === 'object') {
      if (!Object.hasOwn(operand, field)) this.fail(e, `has no field \`${field}\` (it has ${Object.keys(operand).join(', ')})`);
      return operand[field];
    }
    if (operand === 'map' || operand === 'dyn') return 'dyn';
    return this.fail(e, `\`.${field}\` on ${describe(operand)}: only maps and facts have fields`);
  }

  private call(e: Expr, fn: string, target: Expr | undefined, args: Expr[], scope: ReadonlyMap<string, FactType>): FactType {
    const recv = target && this.typeOf(target, scope);
    const types = args.map((a) => this.typeOf(a, scope));
    if (LOGIC.has(fn)) {
      types.forEach((t, i) => fits(t, 'bool') || this.fail(args[i], `\`${operator(fn)}\` needs bools, not ${describe(t)}`));
      return 'bool';
    }
    if (fn === '_?_:_') {
      if (!fits(types[0], 'bool')) this.fail(args[0], `the condition of \`? :\` must be a bool, not ${describe(types[0])}`);
      return nameOf(types[1]) === nameOf(types[2]) ? types[1] : 'dyn';
    }
    if (fn === '_[_]') return typeof types[0] === 'object' ? 'dyn' : this.indexable(args[0], types[0]);
    if ((fn === '_==_' || fn === '_!=_') && neverEqual(types[0], types[1])) {
      this.fail(e, `compares ${describe(types[0])} with ${describe(types[1])}: never equal`);
    }
    const group = this.env.funcs.find(fn);
    if (!group) this.fail(e, `unknown function \`${fn}\``);
    const results = new Set<string>();
    for (const f of group) {
      if ((f.target === undefined) !== (recv === undefined) || f.arguments.length !== types.length) continue;
      if (recv !== undefined && !fits(recv, f.target!.name)) continue;
      if (types.every((t, i) => fits(t, f.arguments[i].name))) results.add(f.result.name);
    }
    if (results.size === 0) {
      const on = recv === undefined ? '' : ` on ${describe(recv)}`;
      this.fail(e, `no \`${operator(fn)}\`${on} takes (${types.map(describe).join(', ')})`);
    }
    return results.size === 1 ? [...results][0] : 'dyn';
  }

  private indexable(e: Expr, t: FactType): FactType {
    if (t === 'list' || t === 'map' || t === 'dyn') return 'dyn';
    return this.fail(e, `cannot index ${describe(t)}`);
  }
}

const isFact = (name: string): name is FactName => Object.hasOwn(FACT_TYPES, name);

/** A known object fact is a map to the functions (`size(caller)`, `'id' in caller`). */
const nameOf = (t: FactType): string => (typeof t === 'object' ? 'map' : t);

function fits(t: FactType, wanted: string): boolean {
  const name = nameOf(t);
  return name === 'dyn' || wanted === 'dyn' || name === wanted;
}

function neverEqual(a: FactType, b: FactType): boolean {
  const [x, y] = [nameOf(a), nameOf(b)];
  if (x === 'dyn' || y === 'dyn' || x === y || x === 'null_type' || y === 'null_type') return false;
  return !(NUMERIC.has(x) && NUMERIC.has(y));
}

function constantType(kind: string | undefined): FactType {
  switch (kind) {
    case 'boolValue':
      return 'bool';
    case 'int64Value':
      return 'int';
    case 'uint64Value':
      return 'uint';
    case 'doubleValue':
      return 'double';
    case 'stringValue':
      return 'string';
    case 'bytesValue':
      return 'bytes';
    case 'nullValue':
      return 'null_type';
    default:
      return 'dyn';
  }
}

function describe(t: FactType): string {
  const name = nameOf(t);
  return name === 'int' ? 'an int' : `a ${name}`;
}

/** `_+_` as a person writes it. */
const operator = (fn: string): string => (fn.startsWith('_') || fn.endsWith('_') || fn.startsWith('@') ? fn.replace(/^@/, '').replace(/_/g, ' ').trim() : fn);
