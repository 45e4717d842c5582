/**
 * The values in a request: "rename draft.md to final.md", "read
 * package.json", "send a GET to https://api.example.com/status", "what's in
 * README.md of octo/app". A value is what a tool is given, not what it does:
 * its own words ("draft", "md", "example") would pull in tools that happen
 * to have them (a draft note), while what kind of thing it is (a file, a
 * URL, a repository) says which tool takes it. So each value is read as the
 * words of its kind, and its own words count little (tool-index.ts).
 *
 * Recognised by their shape only: a URL, a host name, an e-mail address, a
 * file name with a common extension (or a bare extension, ".log"), a path,
 * an owner/name pair, a commit hash, a number.
 */

/** One piece of a request: plain text, or a value with the words of its kind. */
export type RequestPart = { text: string } | { value: string; kind: readonly string[] };

/** Extensions of files people name in requests (code, documents, data, media, archives, logs). */
const FILE_EXTENSIONS = new Set(
  (
    'md markdown txt rst pdf doc docx odt rtf xls xlsx csv tsv ppt pptx json jsonl yaml yml toml ini cfg conf env xml html htm css scss ' +
    'js mjs cjs ts tsx jsx py rb go rs java kt c h cpp hpp cs php sh bash zsh ps1 sql swift lua r ipynb ' +
    'png jpg jpeg gif svg webp bmp ico mp3 wav mp4 mov avi zip tar gz tgz bz2 xz 7z rar jar log lock bin exe dmg iso'
  ).split(' '),
);

/** Top-level domains common enough that `name.tld` is a host, not a file (`docs.example.com`, `github.com/foo/bar`). */
const HOST_SUFFIXES = new Set('com org net io dev app ai co edu gov info me us uk de fr eu cloud sh page site xyz'.split(' '));

const KINDS: Array<[RegExp, readonly string[]]> = [
  [/^[a-z][a-z0-9+.-]*:\/\/\S+$/i, ['url']],
  [/^[^@\s/]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/i, ['email']],
  [/^0x[0-9a-f]+$|^(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}$/i, ['commit']],
  [/^[#v]?\d+([.,:/-]\d+)*%?$/i, []],
];

/** Splits a request into its text and its values (whitespace-separated tokens, trailing punctuation aside). */
export function requestParts(request: string): RequestPart[] {
  return request.split(/\s+/).flatMap((raw): RequestPart[] => {
    const token = raw.replace(/^["'`(<[]+|["'`)>\],;:!?]+$|\.$/g, '');
    if (token.length === 0) return [];
    const kind = kindOf(token);
    return kind ? [{ value: token, kind }] : [{ text: raw }];
  });
}

function kindOf(token: string): readonly string[] | undefined {
  for (const [pattern, kind] of KINDS) if (pattern.test(token)) return kind;
  const slash = token.indexOf('/');
  const head = slash < 0 ? token : token.slice(0, slash);
  const dotted = /^[\w-]+(\.[\w-]+)+$/.test(head) ? head.split('.') : undefined;
  if (dotted && HOST_SUFFIXES.has(dotted.at(-1)!.toLowerCase()) && !FILE_EXTENSIONS.has(dotted.at(-1)!.toLowerCase())) return ['url'];
  const last = token.split('/').at(-1)!;
  if (/^\p{Lu}\p{L}*\.js$/u.test(last)) return undefined; // Node.js, Next.js, Vue.js: a library, not a file
  const extension = /^[\w-]*\.([a-z0-9]{1,8})$/i.exec(last)?.[1]?.toLowerCase();
  if (extension && FILE_EXTENSIONS.has(extension)) return ['file'];
  if (/^(~|\.{1,2})?\/[\w.~-]/.test(token)) return ['path'];
  if (/^[\w.-]+\/[\w.-]+$/.test(token) && /[a-z]/i.test(token)) return ['repository'];
  return undefined;
}
