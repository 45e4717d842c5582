/** Which errors a plugin throws on purpose: a block stops the call unless the plugin is `permissive`. */
import { GatewayError, type ErrorCode } from '../../schemas/errors.js';

const BLOCKING: ReadonlySet<ErrorCode> = new Set(['rate_limited', 'circuit_open', 'plugin_blocked']);

export function isBlock(err: unknown): err is GatewayError {
  return err instanceof GatewayError && BLOCKING.has(err.code);
}
