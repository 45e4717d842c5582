/**
 * The pieces of a workflow on their own: `{{...}}` substitution (whole value
 * vs inside a string, absent inputs), the load-time checks of the compiler,
 * and front matter parsing.
 */
import { describe, expect, it } from 'vitest';
import { substitute, referencesIn } from '../../../../runtime/skills/step-templates.js';
import { compileWorkflow } from '../../../../runtime/skills/workflow-compiler.js';
import { parseFrontMatter } from '../../../../runtime/skills/front-matter.js';
import type { WorkflowSpec } from '../../../../schemas/skill-files.js';

describe('substitution', () => {
  const scope = { inputs: { n: 3, text: 'hi', tags: ['a', 'b'], obj: { deep: { x: true } }, empty: '' }, steps: { s1: 'first', s2: '{"k":1}' } };

  it('a whole-value placeholder keeps the JSON type', () => {
    expect(
      substitute({ a: '{{inputs.n}}', b: '{{ inputs.tags }}', c: '{{inputs.obj.deep}}', d: '{{inputs.obj.deep.x}}', e: '{{steps.s2.text}}' }, scope),
    ).toEqual({
      a: 3,
      b: ['a', 'b'],
      c: { x: true },
      d: true,
      e: '{"k":1}',
    });
  });

  it('inside a longer string, values become text (JSON for non-strings)', () => {
    expect(substitute({ t: 'n={{inputs.n}} tags={{inputs.tags}} from {{steps.s1.text}}; {{inputs.text}}!' }, scope)).toEqual({
      t: 'n=3 tags=["a","b"] from first; hi!',
    });
  });

  it('an absent input leaves the property (or element) out as a whole value, and is empty inside text', () => {
    expect(
      substitute(
        { keep: 1, gone: '{{inputs.missing}}', list: ['{{inputs.missing}}', '{{inputs.n}}'], t: '[{{inputs.missing}}]', e: '{{inputs.empty}}' },
        scope,
      ),
    ).toEqual({
      keep: 1,
      list: [3],
      t: '[]',
      e: '',
    });
  });

  it('works at any depth and leaves other braces alone', () => {
    expect(substitute({ outer: { inner: [{ v: '{{inputs.text}}' }] }, tpl: '{{name}} and {{ other.thing }}', n: 5 }, scope)).toEqual({
      outer: { inner: [{ v: 'hi' }] },
      tpl: '{{name}} and {{ other.thing }}',
      n: 5,
    });
  });

  it('an unsupported reference is refused at load', () => {
    expect(() => referencesIn({ a: '{{steps.s1.json}}' })).toThrow('unsupported reference {{steps.s1.json}}: use {{inputs.<name>}} or {{steps.<id>.text}}');
    expect(() => referencesIn({ a: ['{{inputs}}'] })).toThrow(/unsupported reference \{\{inputs\}\}/);
  });
});

describe('workflow checks at load', () => {
  const wf = (steps: WorkflowSpec['steps'], input_schema?: WorkflowSpec['input_schema']): WorkflowSpec => ({
    name: 'w',
    steps,
    ...(input_schema ? { input_schema } : {}),
  });

  it.each([
    [
      'a duplicate step id',
      wf([
        { id: 'a', tool: 't' },
        { id: 'a', tool: 't' },
      ]),
      "two steps have the id 'a'",
    ],
    ['an unknown dependency', wf([{ id: 'a', tool: 't', depends_on: ['ghost'] }]), "step 'a' depends on unknown step 'ghost'"],
    ['a self dependency', wf([{ id: 'a', tool: 't', depends_on: ['a'] }]), 'dependency cycle: a → a (each step depends on the next)'],
    [
      'a longer cycle',
      wf([
        { id: 'a', tool: 't', depends_on: ['c'] },
        { id: 'b', tool: 't', depends_on: ['a'] },
        { id: 'c', tool: 't', depends_on: ['b'] },
      ]),
      'dependency cycle: a → c → b → a (each step depends on the next)',
    ],
    [
      'a reference to an unknown step',
      wf([{ id: 'a', tool: 't', arguments: { x: '{{steps.zz.text}}' } }]),
      "step 'a' uses {{steps.zz.text}}, but there is no step 'zz'",
    ],
    [
      'an input the schema does not declare',
      wf([{ id: 'a', tool: 't', arguments: { x: '{{inputs.q}}' } }], { type: 'object', properties: { p: { type: 'string' } } }),
      "step 'a' uses {{inputs.q}}, but input_schema declares no property 'q'",
    ],
    [
      'an invalid input schema',
      wf([{ id: 'a', tool: 't' }], { type: 'object', properties: { p: { type: 'strung' } } }),
      /^input_schema is not a valid JSON Schema: /,
    ],
  ])('refuses %s', (_what, spec, message) => {
    expect(() => compileWorkflow(spec)).toThrow(message);
  });

  it('a reference through a chain of dependencies is fine; terminal steps and tools are known', () => {
    const compiled = compileWorkflow(
      wf([
        { id: 'a', tool: 'x' },
        { id: 'b', tool: 'y', depends_on: ['a'] },
        { id: 'c', tool: 'x', depends_on: ['b'], arguments: { v: '{{steps.a.text}}' } },
        { id: 'd', tool: 'z' },
      ]),
    );
    expect(compiled.terminal).toEqual(['c', 'd']);
    expect(compiled.tools).toEqual(['x', 'y', 'z']);
    expect(compiled.inputSchema).toEqual({ type: 'object', properties: {} });
  });
});

describe('front matter', () => {
  it('splits YAML (every scalar a string) from the body', () => {
    expect(parseFrontMatter('\uFEFF---\r\nname: x\r\nmetadata:\r\n  version: 1.10\r\n---\r\n# Body\r\n')).toEqual({
      data: { name: 'x', metadata: { version: '1.10' } },
      body: '# Body\r\n',
    });
  });
  it('names the YAML problem', () => {
    expect(() => parseFrontMatter('---\nname: [x\n---\n')).toThrow(/^front matter is not valid YAML: /);
  });
});
