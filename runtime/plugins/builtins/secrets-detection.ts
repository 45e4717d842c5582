/** secrets_detection: cloud keys, private key blocks, JWTs, service tokens, high-entropy values under key-like names (../detectors/secrets.ts). */
import type { BuiltinSettings } from '../../../schemas/plugins.js';
import { redactSecrets } from '../detectors/secrets.js';
import type { Plugin } from '../plugin.js';
import type { BuiltinContext } from './builtin-context.js';
import { textGuard } from './text-guard.js';

export function secretsDetection(settings: BuiltinSettings<'secrets_detection'>, ctx: BuiltinContext): Plugin {
  return textGuard(settings, ctx, 'secrets', redactSecrets);
}
