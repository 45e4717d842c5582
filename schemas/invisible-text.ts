/**
 * Characters a reader cannot see but a model reads: Unicode tag characters
 * (which spell out hidden ASCII text), zero-width characters and
 * bidirectional controls. The suspicious-text check of tool definitions
 * finds them (runtime/pinning/suspicious-text.ts); what shows a definition to
 * a person (`gateway-client tools diff`) writes them out visibly.
 */

export interface InvisibleClass {
  kind: 'tag_characters' | 'zero_width' | 'bidi_control';
  label: string;
  /** Global and sticky-free: use with matchAll or replace. */
  pattern: RegExp;
}

export const INVISIBLE_CLASSES: readonly InvisibleClass[] = [
  { kind: 'tag_characters', label: 'tag characters (U+E0000–U+E007F)', pattern: /[\u{E0000}-\u{E007F}]+/gu },
  // Zero-width space, non-joiner and joiner, word joiner and the invisible operators, byte order mark, Mongolian vowel separator.
  { kind: 'zero_width', label: 'zero-width characters', pattern: /[\u200B-\u200D\u2060-\u2064\uFEFF\u180E]+/gu },
  // Marks, embeddings, overrides and isolates that reorder what is displayed.
  { kind: 'bidi_control', label: 'bidirectional controls', pattern: /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]+/gu },
];

/** The ASCII text a run of tag characters spells (U+E0020–U+E007E mirror ASCII; the language tag and cancel tag spell nothing). */
export function decodeTagCharacters(run: string): string {
  return [...run]
    .map((ch) => ch.codePointAt(0)! - 0xe0000)
    .filter((code) => code >= 0x20 && code <= 0x7e)
    .map((code) => String.fromCharCode(code))
    .join('');
}

/**
 * The text with every invisible character written out: a run of tag
 * characters as `⟦hidden: "…"⟧` (what it spells), any other as `⟦U+200B⟧`.
 */
export function revealInvisible(text: string): string {
  let out = text;
  for (const { kind, pattern } of INVISIBLE_CLASSES) {
    out = out.replace(pattern, (run) =>
      kind === 'tag_characters' ? `⟦hidden: ${JSON.stringify(decodeTagCharacters(run))}⟧` : [...run].map((ch) => `⟦${codePointLabel(ch)}⟧`).join(''),
    );
  }
  return out;
}

export const codePointLabel = (ch: string): string => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
