// The package ships no types; only its English list is used (runtime/optimizer/text-analysis.ts).
declare module 'stopword' {
  export const eng: readonly string[];
}
