/**
 * What secrets_detection and pii_filter share: scan the arguments on the way
 * in and/or the result on the way out (`where`), then redact what was found
 * (`[REDACTED:<kind>]`) or block the call naming the kinds, never a value.
 */
import { PluginBlockedError } from '../../../schemas/errors.js';
import { mapArgumentTexts, mapResultTexts } from '../payload.js';
import type { CallResult, Plugin, PluginCall, Report } from '../plugin.js';
import type { Tally } from '../detectors/text-detector.js';
import type { BuiltinContext } from './builtin-context.js';

export interface TextGuardSettings {
  where: 'arguments' | 'results' | 'both';
  action: 'redact' | 'block';
}

/** Redacts one text (its key, when it has one, may tell what it is), counting what it found. */
export type Redact = (text: string, key: string | undefined, tally: Tally) => string;

export function textGuard(settings: TextGuardSettings, ctx: BuiltinContext, what: string, redact: Redact): Plugin {
  const verdict = (found: Tally, where: 'arguments' | 'result', report: Report): void => {
    if (settings.action === 'block') {
      throw new PluginBlockedError(ctx.name, `the ${where === 'result' ? 'result holds' : 'arguments hold'} ${what}: ${Object.keys(found).join(', ')}`, {
        where,
        kinds: found,
      });
    }
    report({ action: 'redact', where, kinds: found });
  };
  const plugin: Plugin = {};
  if (settings.where !== 'results') {
    plugin.pre = (call: PluginCall, report: Report) => {
      const found: Tally = {};
      const args = mapArgumentTexts(call.arguments, (text, { key }) => redact(text, key, found));
      if (args === call.arguments) return;
      verdict(found, 'arguments', report);
      call.arguments = args;
    };
  }
  if (settings.where !== 'arguments') {
    plugin.post = (call: PluginCall, result: CallResult, report: Report) => {
      const found: Tally = {};
      const redacted = mapResultTexts(call.method, result, (text, { key }) => redact(text, key, found));
      if (redacted === result) return result;
      verdict(found, 'result', report);
      return redacted;
    };
  }
  return plugin;
}
