/**
 * A definition waiting for approval, for a person to read before approving:
 * what waits and why, what the suspicious-text check found, then the
 * changes, removed lines red and added ones green. Invisible characters are
 * written out (`⟦U+200B⟧`, `⟦hidden: "…"⟧`): what a model would read and a
 * terminal would not show is exactly what the reader must see.
 */
import { revealInvisible } from '../../schemas/invisible-text.js';
import type { Colors } from './colors.js';
import { renderFields } from './table.js';

interface TextChange {
  before: string | null;
  after: string | null;
}

/** A pending tool or prompt (GET /tools/pending, /prompts/pending), with the backend's name for it as `original`. */
export interface PendingView {
  kind: 'tool' | 'prompt';
  name: string;
  backend: string;
  original: string;
  reason: string;
  quarantined: boolean;
  since: string;
  hash: string;
  pinned_hash: string | null;
  findings: Array<{ kind: string; field: string; detail: string }>;
  diff: { description: TextChange; title?: TextChange } & Record<string, TextChange | string | undefined>;
}

const WHY: Record<string, string> = {
  changed: 'its definition differs from the pinned one',
  new: "it appeared after the backend's definitions were pinned",
  suspicious: 'its definition holds suspicious text',
};

export function renderPendingDiff(c: Colors, p: PendingView): string {
  const state = p.quarantined ? c.red('quarantined: clients do not see it') : c.yellow('served (mode warn)');
  const out = [
    renderFields([
      [p.kind === 'tool' ? 'Tool' : 'Prompt', `${c.bold(p.name)} (backend ${p.backend}, as ${p.original})`],
      ['Reason', `${p.reason}: ${WHY[p.reason] ?? p.reason}`],
      ['State', `${state} since ${p.since}`],
      [
        'Pinned',
        p.pinned_hash === null
          ? 'nothing (not pinned yet)'
          : p.pinned_hash === p.hash
            ? 'this definition, as first seen (not approved)'
            : `sha256 ${p.pinned_hash}`,
      ],
      ['Current', `sha256 ${p.hash}`],
    ]).trimEnd(),
  ];
  if (p.findings.length > 0) {
    out.push(c.bold(c.red('Suspicious text')));
    for (const f of p.findings) out.push(`  ${c.red('!')} ${f.field}: ${revealInvisible(f.detail)}`);
  }
  // Text first, in a fixed order (the API's JSON may order the keys otherwise).
  const fields = ['description', 'title', ...Object.keys(p.diff).filter((k) => k !== 'description' && k !== 'title')];
  for (const field of fields) {
    const change = p.diff[field];
    if (change === undefined) continue;
    out.push('', c.bold(field));
    out.push(typeof change === 'string' ? patchLines(c, change) : textChange(c, change));
  }
  return `${out.join('\n')}\n`;
}

function textChange(c: Colors, { before, after }: TextChange): string {
  if (before === after) return indent(after === null ? c.dim('(none)') : revealInvisible(after), '  ');
  const side = (text: string | null, sign: string, paint: (s: string) => string) =>
    text === null
      ? paint(`${sign} ${c.dim('(none)')}`)
      : revealInvisible(text)
          .split('\n')
          .map((l) => paint(`${sign} ${l}`))
          .join('\n');
  return `${side(before, '-', c.red)}\n${side(after, '+', c.green)}`;
}

function patchLines(c: Colors, patch: string): string {
  if (patch === '') return indent(c.dim('(unchanged)'), '  ');
  return revealInvisible(patch.replace(/\n$/, ''))
    .split('\n')
    .map((l) =>
      l.startsWith('+++') || l.startsWith('---')
        ? c.bold(l)
        : l.startsWith('@@')
          ? c.cyan(l)
          : l.startsWith('+')
            ? c.green(l)
            : l.startsWith('-')
              ? c.red(l)
              : l,
    )
    .join('\n');
}

const indent = (text: string, by: string) => text.replace(/^/gm, by);
