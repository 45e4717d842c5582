/** pii_filter: e-mail addresses, phone numbers, card numbers (Luhn), IBANs (mod 97), as `categories` chooses (../detectors/pii.ts). */
import type { BuiltinSettings } from '../../../schemas/plugins.js';
import { piiDetectors, redactPii } from '../detectors/pii.js';
import type { Plugin } from '../plugin.js';
import type { BuiltinContext } from './builtin-context.js';
import { textGuard } from './text-guard.js';

export function piiFilter(settings: BuiltinSettings<'pii_filter'>, ctx: BuiltinContext): Plugin {
  const detectors = piiDetectors(settings.categories);
  return textGuard(settings, ctx, 'personal data', (text, _key, tally) => redactPii(text, detectors, tally));
}
