/**
 * Adds a backend to the config file in place, through the `yaml` Document
 * API so the file's comments, order and formatting stay as they were. The
 * edited text is validated (by the caller's validator, the config loader)
 * before it replaces the file, atomically; an existing backend name is a
 * conflict and leaves the file untouched. Edits of one file run one at a time.
 */
import { readFile } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';
import { isMap, isScalar, parseDocument, visit, YAMLMap } from 'yaml';
import { GatewayError } from '../../schemas/errors.js';
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

async function addNow({ filePath, name, spec, comment, validate }: BackendAddition): Promise<void> {
  const text = await readFile(filePath, 'utf8');
  const doc = parseDocument(text);
  if (doc.errors.length > 0) validate(text); // reports the file's own YAML errors, with lines
  if (doc.hasIn(['backends', name])) {
    throw new GatewayError('backend_exists', `A backend named '${name}' is already in ${filePath}; pick another name (backend_name)`, { backend: name });
  }
  let backends = doc.get('backends', true);
  if (!isMap(backends)) {
    backends = new YAMLMap();
    doc.set('backends', backends);
  }
  const map = backends as YAMLMap;
  if (map.items.length === 0) map.flow = false; // `backends: {}` becomes a block mapping
  const value = doc.createNode(spec);
  // Short lists such as args read best on one line: ["-y", "pkg@1.0.0"].
  visit(value, {
    Seq(_key, node) {
      node.flow = true;
    },
  });
  const pair = doc.createPair(name, value);
  if (comment && isScalar(pair.key)) pair.key.commentBefore = ` ${comment}`;
  map.add(pair);
  // No re-wrapping: a long line the install did not touch comes back whole (flow collections are written `[ a, b ]`).
  const edited = doc.toString({ lineWidth: 0 });
  validate(edited);
  await writeFileAtomic(filePath, edited);
}
