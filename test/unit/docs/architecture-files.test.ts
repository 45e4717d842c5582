/**
 * docs/architecture.md names files and folders as the map of the code: every
 * one it names must exist. Checked: every repository path in the text
 * (`api/mcp/authenticate.ts`, `runtime/transports/`: a path whose first
 * folder is one of the repository's), every backticked file name without a
 * folder (`session-owner.ts`: in the folder of the path named just before it,
 * or anywhere in the repository), the entries of the layout tree (`transports/`
 * under `runtime/`), the links to other docs and the links to its own headings.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOC = 'docs/architecture.md';
const FILE_EXT = /\.(ts|md|yaml|json|js|cjs)$/;
/** Build output, dependencies and scratch space: never what the doc means. */
const SKIP = new Set(['node_modules', 'dist', '.git', '.tmp', '.cache']);

/** The repository's top-level folders: a path in the doc starts with one of them. */
const TOP_FOLDERS = readdirSync(ROOT, { withFileTypes: true })
  .filter((e) => e.isDirectory() && !SKIP.has(e.name) && !e.name.startsWith('.'))
  .map((e) => e.name);

/** Every file's name → whether it exists somewhere in the repository (outside SKIP). */
function fileNames(dir = ROOT, out = new Set<string>()): Set<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    if (e.isDirectory()) fileNames(join(dir, e.name), out);
    else out.add(e.name);
  }
  return out;
}

interface Reference {
  /** As the doc writes it. */
  named: string;
  /** Repository paths that would satisfy it (any one). */
  candidates: string[];
}

const PATH = new RegExp(
  String.raw`(?<![\w./<>-])((?:${TOP_FOLDERS.map((f) => f.replace(/[.-]/g, '\\$&')).join('|')})/(?:[\w.-]+/)*(?:[\w.-]+\.(?:ts|md|yaml|json|js|cjs))?)(?![\w-])`,
  'g',
);

/** The repository paths a Markdown text names, each with what would satisfy it. */
function referencesOf(markdown: string, docPath: string, names: ReadonlySet<string>): Reference[] {
  const refs: Reference[] = [];
  // Full paths, in order, so a bare file name can be read in the folder of the path before it.
  const paths = [...markdown.matchAll(PATH)].map((m) => ({ at: m.index, path: m[1]! }));
  for (const { path } of paths) refs.push({ named: path, candidates: [path] });
  for (const m of markdown.matchAll(/`([\w.-]+)`/g)) {
    const name = m[1]!;
    if (!FILE_EXT.test(name) || name.includes('/')) continue;
    const before = paths.filter((p) => p.at < m.index).at(-1);
    const near = before ? posix.join(before.path.endsWith('/') ? before.path : posix.dirname(before.path), name) : name;
    refs.push({ named: name, candidates: [near, name, ...(names.has(name) ? [`(somewhere)/${name}`] : [])] });
  }
  for (const block of markdown.matchAll(/```\n([\s\S]*?)```/g)) refs.push(...treeEntries(block[1]!));
  for (const m of markdown.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
    const target = m[1]!;
    if (/^[a-z]+:/.test(target)) continue;
    refs.push({ named: target, candidates: [posix.join(posix.dirname(docPath), target)] });
  }
  return refs;
}

/**
 * The layout tree: a top folder at column 0 (`runtime/`), its entries at
 * column 2 before the description (`transports/`, `gateway-controller.ts`,
 * `load-config.ts, observability.ts`, `client/ output/ repl/`), and a
 * folder's own folders at column 4 (`methods/` under `api/mcp/`).
 */
function treeEntries(block: string): Reference[] {
  const refs: Reference[] = [];
  let top: string | undefined;
  let folder: string | undefined;
  for (const line of block.split('\n')) {
    const head = /^([\w-]+\/)(?:\s|$)/.exec(line);
    if (head) {
      top = TOP_FOLDERS.includes(head[1]!.slice(0, -1)) ? head[1]! : undefined;
      continue;
    }
    const indent = /^( {2}| {4})\S/.exec(line)?.[1]!.length;
    if (!top || indent === undefined) continue;
    const parent = indent === 2 ? top : folder;
    if (!parent) continue;
    const column = line.slice(indent).split(/\s{2,}/)[0]!;
    for (const name of column.split(/[,\s]+/).filter(Boolean)) {
      if (!name.endsWith('/') && !FILE_EXT.test(name)) continue;
      refs.push({ named: `${parent}${name}`, candidates: [`${parent}${name}`] });
      if (indent === 2) folder = name.endsWith('/') ? `${top}${name}` : undefined;
    }
  }
  return refs;
}

/** What a doc names that is not there. */
function missingIn(markdown: string, docPath: string): string[] {
  const names = fileNames();
  const exists = (candidate: string) => (candidate.startsWith('(somewhere)/') ? names.has(basename(candidate)) : existsSync(join(ROOT, candidate)));
  return [
    ...new Set(
      referencesOf(markdown, docPath, names)
        .filter((r) => !r.candidates.some(exists))
        .map((r) => r.named),
    ),
  ];
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .replace(/\s/g, '-');

function brokenAnchors(markdown: string): string[] {
  const anchors = new Set([...markdown.matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1]!.trim())));
  return [...markdown.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!).filter((a) => !anchors.has(a));
}

describe('docs/architecture.md names only what exists', () => {
  const doc = readFileSync(join(ROOT, DOC), 'utf8');

  it('every file and folder it names is in the repository', () => {
    expect(referencesOf(doc, DOC, fileNames()).length).toBeGreaterThan(100);
    expect(missingIn(doc, DOC)).toEqual([]);
  });

  it('every link to its own headings lands on one', () => {
    expect(brokenAnchors(doc)).toEqual([]);
  });

  it('finds a path that is not there, in each way a path is written', () => {
    const bogus = [
      'The router (`runtime/routing/no-such-router.ts`, `no-such-step.ts`) and `runtime/no-such-folder/`.',
      'See [nothing](no-such-doc.md) and [here](#no-such-heading).',
      '```',
      'runtime/',
      '  no-such-area/          what it does',
      '  routing/               exists',
      '    no-such-sub/         what it does',
      '```',
    ].join('\n');
    expect(missingIn(bogus, DOC)).toEqual([
      'runtime/routing/no-such-router.ts',
      'runtime/no-such-folder/',
      'no-such-step.ts',
      'runtime/no-such-area/',
      'runtime/routing/no-such-sub/',
      'no-such-doc.md',
    ]);
    expect(brokenAnchors(bogus)).toEqual(['no-such-heading']);
  });
});
