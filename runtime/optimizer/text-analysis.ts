/**
 * How tool texts and queries become search terms: words split the way tool
 * names are written (snake_case, kebab-case, camelCase, dots), lower-cased,
 * without English stop words, reduced to their stem ("creating issues" and
 * `create_issue` share `creat` and `issu`). Each step can be switched off, so
 * the bench can show what each one brings (bench/optimizer/quality.ts).
 */
import { stemmer } from 'stemmer';
import { eng as ENGLISH_STOP_WORDS } from 'stopword';

export interface AnalysisSteps {
  /** Drop English stop words ("how", "the", "my"). */
  stopWords: boolean;
  /** Porter stemming ("issues" → "issu"). */
  stem: boolean;
}

export const ALL_STEPS: AnalysisSteps = { stopWords: true, stem: true };

/**
 * Words a tool request uses for what it wants: kept although the generic
 * list has them ("get the weather", "make a branch", "take a screenshot").
 */
const MEANINGFUL = new Set(['get', 'make', 'take', 'up', 'out', 'over', 'under', 'before', 'after', 'between', 'more', 'most', 'other', 'same', 'like']);
const STOP_WORDS = new Set(
  [...ENGLISH_STOP_WORDS, 'please', 'want', 'need', 'let', 'us', 'll', 're', 've', 's', 't', 'd', 'm', 'know', 'tell', 'give', 'just'].filter(
    (w) => !MEANINGFUL.has(w),
  ),
);

/** Splits text into lower-case words, breaking identifiers at `_`, `-`, `.`, `/` and camelCase humps. */
export function splitWords(text: string): string[] {
  const spaced = text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2') // createIssue → create Issue
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2'); // HTTPServer → HTTP Server
  return spaced
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/** One word as the index stores it, or null when it carries nothing. */
export function termOf(word: string, steps: AnalysisSteps): string | null {
  if (steps.stopWords && STOP_WORDS.has(word)) return null;
  return steps.stem ? stemmer(word) : word;
}

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}
