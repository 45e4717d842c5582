/**
 * Unions of choices (anyOf or oneOf of const and enum branches) fold into one
 * error naming every allowed value; other unions stay as ajv reports them.
 */
import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { choiceMessage, foldChoiceUnions } from '../../../../controller/config/choice-errors.js';

const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
const validate = ajv.compile({
  type: 'object',
  properties: {
    any: { anyOf: [{ const: 'a' }, { const: 'b' }, { enum: ['c', 'd'] }] },
    one: {
      oneOf: [
        { type: 'string', const: 'x' },
        { type: 'integer', const: 1 },
      ],
    },
    list: { type: 'array', items: { anyOf: [{ const: 'p' }, { const: 'q' }] } },
    mixed: { anyOf: [{ const: 'auto' }, { type: 'integer' }] },
  },
});

function folded(data: unknown) {
  expect(validate(data)).toBe(false);
  return foldChoiceUnions(validate.errors!).map((e) => ({ at: e.instancePath, keyword: e.keyword, allowed: e.params.allowedValues as unknown }));
}

describe('foldChoiceUnions', () => {
  it('folds anyOf and oneOf of const and enum branches into one enum error per value', () => {
    expect(folded({ any: 'z', one: 'y', list: ['p', 'r', 's'] })).toEqual([
      { at: '/any', keyword: 'enum', allowed: ['a', 'b', 'c', 'd'] },
      { at: '/one', keyword: 'enum', allowed: ['x', 1] },
      { at: '/list/1', keyword: 'enum', allowed: ['p', 'q'] },
      { at: '/list/2', keyword: 'enum', allowed: ['p', 'q'] },
    ]);
  });

  it('leaves a union with a branch that is not a choice as ajv reports it', () => {
    expect(folded({ mixed: 'manual' }).map((e) => e.keyword)).toEqual(['const', 'type', 'anyOf']);
  });

  it('says the allowed values as they are written in YAML, and what was given', () => {
    expect(choiceMessage(['x', 1, null], 'y')).toBe('must be one of: x, 1, null (got "y")');
  });
});
