/**
 * markdown_cleaner: what a model does not need from a result's Markdown:
 * images (`![alt](url)` becomes its alt text; they are a classic channel for
 * data leaving by URL), optionally links (`[text](url)` becomes its text),
 * and HTML tags and comments (hidden text; `<script>` and `<style>` go with
 * their content). Code (fenced blocks, inline spans) is left as it is, and so
 * is a resource that is not Markdown or plain text by its media type.
 */
import type { BuiltinSettings } from '../../../schemas/plugins.js';
import { mapResultTexts } from '../payload.js';
import type { CallResult, Plugin, PluginCall, Report } from '../plugin.js';

/** Fenced blocks and inline code spans, kept apart by split() (odd indexes). */
const CODE = /(```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|`[^`\n]+`)/;
/** `(url)` or `(url "title")`, one level of parentheses inside the URL. */
const TARGET = String.raw`\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"]*")?\)`;
/** `![alt](url)` or `![alt][ref]`, the alt text matched by `alt`. */
const image = (alt: string): string => String.raw`!\[${alt}\](?:${TARGET}|\[[^\]]*\])`;
const IMAGE = new RegExp(image(String.raw`([^\]]*)`), 'g');
/**
 * `[text](url)` whose text may be an image (a linked badge), never the
 * `[alt](url)` of an image itself; or an autolink `<https://…>`.
 */
const LINK = new RegExp(String.raw`(?<!!)\[((?:${image(String.raw`[^\]]*`)}|[^[\]])+)\]${TARGET}|<(https?:\/\/[^\s>]+)>`, 'g');
const HIDDEN_HTML = /<!--[\s\S]*?-->|<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
const TAG = /<\/?([A-Za-z][A-Za-z0-9-]*)(?:\s[^<>]*)?\/?>/g;
const IMG_TAG = /<img\b[^<>]*>/gi;
const ALT = /\salt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i;

/** Elements of HTML (and custom elements, with a `-`): `a < b and c > d` in prose is no tag. */
const HTML_ELEMENTS = new Set(
  (
    'a abbr address area article aside audio b base bdi bdo blockquote body br button canvas caption center cite code col colgroup data datalist dd del ' +
    'details dfn dialog div dl dt em embed fieldset figcaption figure font footer form h1 h2 h3 h4 h5 h6 head header hr html i iframe img input ins ' +
    'kbd label legend li link main map mark meta meter nav noscript object ol optgroup option output p param picture pre progress q rp rt ruby s samp ' +
    'script section select slot small source span strike strong style sub summary sup svg table tbody td template textarea tfoot th thead time title tr ' +
    'track u ul var video wbr'
  ).split(' '),
);

const MARKDOWN_TYPES = /^text\/(markdown|x-markdown|plain)\b/i;

export function markdownCleaner(settings: BuiltinSettings<'markdown_cleaner'>): Plugin {
  const clean = (text: string): string =>
    text
      .split(CODE)
      .map((part, i) => (i % 2 === 1 ? part : cleanProse(part, settings)))
      .join('');
  return {
    post(call: PluginCall, result: CallResult, report: Report): CallResult {
      const cleaned = mapResultTexts(call.method, result, (text, { group, mimeType }) => {
        if (group === 'structured' || (mimeType !== undefined && !MARKDOWN_TYPES.test(mimeType))) return text;
        // Nothing to clean without one of these characters: most results end here.
        if (!/[!<[]/.test(text)) return text;
        const out = clean(text);
        return out === text ? text : out;
      });
      if (cleaned !== result) report({ action: 'clean', where: 'result' });
      return cleaned;
    },
  };
}

/**
 * Each setting acts on its own construct only: images (Markdown and `<img>`)
 * are the images setting's whatever the others say, a link's text keeps an
 * image it holds when images stay, and the HTML setting leaves `<img>` alone.
 */
function cleanProse(text: string, s: BuiltinSettings<'markdown_cleaner'>): string {
  let out = text;
  if (s.strip_images) out = out.replace(IMAGE, (_m, alt: string) => alt).replace(IMG_TAG, imgAlt);
  if (s.strip_links) out = out.replace(LINK, (_m, label?: string, url?: string) => label ?? url ?? '');
  if (s.strip_html) out = out.replace(HIDDEN_HTML, '').replace(TAG, (tag, name: string) => (isStrippedElement(name.toLowerCase()) ? '' : tag));
  return out;
}

function imgAlt(tag: string): string {
  const alt = ALT.exec(tag);
  return alt ? (alt[1] ?? alt[2] ?? alt[3]) : '';
}

/** HTML elements and custom elements (with a `-`); `<img>` is an image, left to strip_images. */
function isStrippedElement(name: string): boolean {
  return name !== 'img' && (HTML_ELEMENTS.has(name) || name.includes('-'));
}
