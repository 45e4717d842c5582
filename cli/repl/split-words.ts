/**
 * A REPL line into words, the way a shell would for plain use: whitespace
 * separates, '…' is literal, "…" allows \" and \\, a backslash outside quotes
 * escapes the next character. Also says whether the line ends inside a word
 * (what tab completion completes) and where that word starts.
 */
export interface SplitLine {
  words: string[];
  /** The unfinished last word ('' when the line ends in whitespace). */
  partial: string;
  /** Index in the line where the partial word starts. */
  partialStart: number;
  /** A quote was left open. */
  unterminated: boolean;
}

export function splitWords(line: string): SplitLine {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let start = line.length;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else current += ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) current += line[++i];
      else current += ch;
      continue;
    }
    if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
      continue;
    }
    if (!inWord) {
      inWord = true;
      start = i;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '\\' && i + 1 < line.length) current += line[++i];
    else current += ch;
  }
  if (inWord) return { words, partial: current, partialStart: start, unterminated: quote !== undefined };
  return { words, partial: '', partialStart: line.length, unterminated: false };
}

/** All words of a line, for running it (the unfinished one included). */
export function lineToArgv(line: string): { argv: string[]; unterminated: boolean } {
  const s = splitWords(line);
  return { argv: s.partialStart < line.length ? [...s.words, s.partial] : s.words, unterminated: s.unterminated };
}
