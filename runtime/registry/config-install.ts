/**
 * Adds a backend to the config file in place. The file is parsed only to
 * find where the `backends` mapping ends; the new entry is inserted there as
 * text, so every other byte of the file (comments, quoting, spacing, flow
 * lists) stays as the user wrote it. The edited text is validated (by the
 * caller's validator, the config loader) before it replaces the file,
 * atomically; an existing backend name is a conflict and leaves the file
 * untouched. Edits of one file run one at a time.
 */
import { readFile } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';
import { isMap, isScalar, parseDocument, visit, Document, LineCounter, type Pair, type YAMLMap } from 'yaml';
import { ConfigError, GatewayError } from '../../schemas/errors.js';
import type { InstallSpec } from './registry-entry.js';

export interface BackendAddition {
  filePath: string;
  name: string;
  spec: InstallSpec;
  /** Written as a comment above the new backend. */
  comment?: string;
  /** Throws (a ConfigError) when the edited file would not load. */
  validate: (text: string) => void;
}

const queues = new Map<string, Promise<unknown>>();

export function addBackendToConfigFile(addition: BackendAddition): Promise<void> {
  const previous = queues.get(addition.filePath) ?? Promise.resolve();
  const next = previous.then(() => addNow(addition));
  const settled = next.catch(() => undefined);
  queues.set(addition.filePath, settled);
  void settled.then(() => {
    if (queues.get(addition.filePath) === settled) queues.delete(addition.filePath);
  });
  return next;
}

async function addNow(addition: BackendAddition): Promise<void> {
  const text = await readFile(addition.filePath, 'utf8');
  const edited = withBackend(text, addition);
  addition.validate(edited);
  await writeFileAtomic(addition.filePath, edited);
}

/** `text` with the backend added to its `backends` mapping; the rest of the text is copied unchanged. */
function withBackend(text: string, { filePath, name, spec, comment, validate }: BackendAddition): string {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  if (doc.errors.length > 0) validate(text); // reports the file's own YAML errors, with lines
  if (doc.hasIn(['backends', name])) {
    // No parameter name in the hint: the API calls it backend_name, gateway-client --backend-name.
    throw new GatewayError('backend_exists', `A backend named '${name}' is already in ${filePath}; choose another name`, { backend: name });
  }
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const column = (offset: number) => lines.linePos(offset).col - 1;
  const pair = isMap(doc.contents) ? (doc.contents.items.find((p) => isScalar(p.key) && p.key.value === 'backends') as Pair | undefined) : undefined;
  const backends = pair?.value;

  if (isMap(backends) && backends.items.length > 0) {
    const first = backends.items[0].key;
    const last = backends.items[backends.items.length - 1];
    const lastEnd = rangeOf(last.value ?? last.key)[1];
    if (backends.flow) return splice(text, lastEnd, lastEnd, `, ${flowEntry(name, spec, text[rangeOf(backends)[0] + 1] === ' ')}`);
    const keyColumn = isScalar(first) ? column(rangeOf(first)[0]) : 2;
    const step = Math.max(1, keyColumn - column(rangeOf(pair!.key)[0]));
    return insertLines(text, lineEnd(text, lastEnd), blockEntry(name, spec, comment, { indent: keyColumn, step }), eol);
  }
  if (backends && !isMap(backends) && !(isScalar(backends) && backends.value === null)) {
    validate(text); // `backends` is not a mapping: the file's own problem, reported by the loader
    throw new ConfigError(`backends in ${filePath} is not a mapping`, [{ path: 'backends', message: 'must be a mapping of backend names' }]);
  }
  const entry = blockEntry(name, spec, comment, { indent: 2, step: 2 });
  if (pair) {
    // `backends:`, `backends: {}` or `backends: null`: the value gives way to the new block mapping
    // below the key; a comment after it stays on the key's line.
    const keyEnd = rangeOf(pair.key)[1];
    const [start, end] = backends ? rangeOf(backends) : [keyEnd, keyEnd];
    const blankRest = /^[ \t]*(?=\r?\n|$)/.exec(text.slice(end));
    const opened = blankRest ? splice(text, keyEnd, end + blankRest[0].length, ':') : splice(text, start, end, '');
    return insertLines(opened, lineEnd(opened, keyEnd + 1), entry, eol);
  }
  return insertLines(text, text.length, `backends:${eol}${entry}`, eol);
}

/** The new entry as block YAML lines at `indent`, nested by `step`; lists on one line (`[-y, pkg@1.0.0]`). */
function blockEntry(name: string, spec: InstallSpec, comment: string | undefined, { indent, step }: { indent: number; step: number }): string {
  const doc = new Document({ [name]: spec });
  flowLists(doc);
  const pair = (doc.contents as YAMLMap).items[0];
  if (comment && isScalar(pair.key)) pair.key.commentBefore = ` ${comment}`;
  const pad = ' '.repeat(indent);
  return doc
    .toString({ indent: step, lineWidth: 0, flowCollectionPadding: false })
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => (line ? pad + line : line))
    .join('\n');
}

/** `name: { type: …, args: [...] }` for a mapping written in flow style, padded inside braces as the file's is. */
function flowEntry(name: string, spec: InstallSpec, padded: boolean): string {
  const doc = new Document({ [name]: spec });
  visit(doc, {
    Map(_key, node) {
      node.flow = true;
    },
  });
  flowLists(doc);
  return doc
    .toString({ lineWidth: 0, flowCollectionPadding: padded })
    .trim()
    .replace(/^\{\s*(.*?)\s*\}$/s, '$1');
}

function flowLists(doc: Document): void {
  visit(doc, {
    Seq(_key, node) {
      node.flow = true;
    },
  });
}

/** Inserts `block` (lines without the final newline) at the start of a line, or after a newline added at the end of the text. */
function insertLines(text: string, at: number, block: string, eol: string): string {
  const before = at > 0 && !text.slice(0, at).endsWith('\n') ? eol : '';
  return splice(text, at, at, `${before}${block.replace(/\n/g, eol)}${eol}`);
}

/** The offset just after the line holding `offset` (the end of the text when it has no newline). */
function lineEnd(text: string, offset: number): number {
  if (offset > 0 && text[offset - 1] === '\n') return offset;
  const nl = text.indexOf('\n', offset);
  return nl === -1 ? text.length : nl + 1;
}

function splice(text: string, from: number, to: number, insert: string): string {
  return text.slice(0, from) + insert + text.slice(to);
}

function rangeOf(node: unknown): [number, number, number] {
  const range = (node as { range?: [number, number, number] | null } | null)?.range;
  if (!range) throw new Error('a parsed YAML node without a source range');
  return range;
}
