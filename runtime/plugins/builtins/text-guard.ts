/**
 * What secrets_detection and pii_filter share: scan the arguments on the way
 * in and/or what comes back (`where`): the result, a failed call's error
 * (message and data), and the log messages a backend sends that are relayed
 * to clients; then redact what was found (`[REDACTED:<kind>]`) or block
 * naming the kinds, never a value. A blocked log message is not relayed.
 */
import type { Notification } from '@modelcontextprotocol/client';
import { PluginBlockedError } from '../../../schemas/errors.js';
import { mapArgumentTexts, mapErrorTexts, mapNotificationTexts, mapResultTexts } from '../payload.js';
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
  const verdict = (found: Tally, where: keyof typeof HOLDS, report: Report): void => {
    if (settings.action === 'block') {
      throw new PluginBlockedError(ctx.name, `${HOLDS[where]} ${what}: ${Object.keys(found).join(', ')}`, { where, kinds: found });
    }
    // A notification belongs to no operation: it is counted, and has no place in an audit record.
    report({ action: 'redact', ...(where !== 'notification' && { where }), kinds: found });
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
    plugin.error = (_call: PluginCall, err: unknown, report: Report) => {
      const found: Tally = {};
      const redacted = mapErrorTexts(err, (text, { key }) => redact(text, key, found));
      if (redacted !== err) verdict(found, 'error', report);
      return redacted;
    };
    plugin.notification = (_backend: string, notification: Notification, report: Report) => {
      const found: Tally = {};
      const redacted = mapNotificationTexts(notification, (text, { key }) => redact(text, key, found));
      if (redacted !== notification) verdict(found, 'notification', report);
      return redacted;
    };
  }
  return plugin;
}

/** What a block says was found where. */
const HOLDS = {
  arguments: 'the arguments hold',
  result: 'the result holds',
  error: "the backend's error holds",
  notification: 'a log message holds',
} as const;
