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
const IMAGE = /!\[([^\]]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"]*")?\)|!\[([^\]]*)\]\[[^\]]*\]/g;
const LINK = /\[([^\]]+)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"]*")?\)|<(https?:\/\/[^\s>]+)>/g;
const HIDDEN_HTML = /<!--[\s\S]*?-->|<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
const TAG = /<\/?([A-Za-z][A-Za-z0-9-]*)(?:\s[^<>]*)?\/?>/g;
const IMG_TAG = /<img\b[^<>]*>/gi;

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

function cleanProse(text: string, s: BuiltinSettings<'markdown_cleaner'>): string {
  let out = text;
  if (s.strip_images) out = out.replace(IMAGE, (_m, alt?: string, refAlt?: string) => alt ?? refAlt ?? '').replace(IMG_TAG, '');
  if (s.strip_links) out = out.replace(LINK, (_m, label?: string, url?: string) => label ?? url ?? '');
  if (s.strip_html)
    out = out.replace(HIDDEN_HTML, '').replace(TAG, (tag, name: string) => (HTML_ELEMENTS.has(name.toLowerCase()) || name.includes('-') ? '' : tag));
  return out;
}
