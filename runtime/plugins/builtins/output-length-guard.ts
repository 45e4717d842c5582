/**
 * output_length_guard: a result's text may be at most `max_chars`
 * characters: a tool's text content (all items together), its
 * structuredContent's strings (together), a resource's text contents, a
 * prompt's messages (../payload.ts). `truncate` cuts what is beyond and
 * ends the cut text with `…` (within the limit); `block` fails the call.
 */
import { PluginBlockedError } from '../../../schemas/errors.js';
import type { BuiltinSettings } from '../../../schemas/plugins.js';
import { mapResultTexts, type TextGroup } from '../payload.js';
import type { CallResult, Plugin, PluginCall, Report } from '../plugin.js';
import type { BuiltinContext } from './builtin-context.js';

const ELLIPSIS = '…';

export function outputLengthGuard(settings: BuiltinSettings<'output_length_guard'>, ctx: BuiltinContext): Plugin {
  const max = settings.max_chars;
  return {
    post(call: PluginCall, result: CallResult, report: Report): CallResult {
      const used = new Map<TextGroup, number>();
      let longest = 0;
      const cut = mapResultTexts(call.method, result, (text, { group }) => {
        const before = used.get(group) ?? 0;
        used.set(group, before + text.length);
        longest = Math.max(longest, before + text.length);
        if (before + text.length <= max) return text;
        return truncate(text, Math.max(0, max - before));
      });
      if (cut === result) return result;
      if (settings.action === 'block') {
        throw new PluginBlockedError(ctx.name, `the result has ${longest} characters of text, more than max_chars (${max})`, {
          where: 'result',
          chars: longest,
          max_chars: max,
        });
      }
      report({ action: 'truncate', where: 'result' });
      return cut;
    },
  };
}

/** At most `room` characters, the last one `…`; a surrogate pair is never split. */
function truncate(text: string, room: number): string {
  if (room === 0) return '';
  let end = room - 1;
  if (end > 0 && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
  return text.slice(0, end) + ELLIPSIS;
}
