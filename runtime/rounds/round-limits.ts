/** The bounds of a call that asks its client for input (`server.input_rounds`). */
import type { GatewayConfig } from '../../schemas/config.js';
import { InputLimitError } from '../../schemas/errors.js';
import { jsonBytes } from './input-requests.js';

export interface RoundLimits {
  /** How long a call waits for its client's input before it is cancelled at the backend. */
  inputTimeoutMs: number;
  /** Rounds of input one call may ask for. */
  maxRounds: number;
  /** Largest `inputRequests` of one round (and `inputResponses`), in JSON bytes. */
  maxInputBytes: number;
}

export function roundLimitsOf(settings: GatewayConfig['server']['input_rounds']): RoundLimits {
  return { inputTimeoutMs: settings.input_timeout_s * 1000, maxRounds: settings.max_rounds, maxInputBytes: settings.max_input_bytes };
}

/** Refuses one more round, or one too large, with the error that says which limit and how to raise it. */
export function checkRound(limits: RoundLimits, round: number, inputRequests: unknown, backend?: string): void {
  if (round > limits.maxRounds) {
    throw new InputLimitError(
      backend,
      'too_many_rounds',
      `The call asked its client for input more than ${limits.maxRounds} times (server.input_rounds.max_rounds)`,
    );
  }
  const bytes = jsonBytes(inputRequests);
  if (bytes > limits.maxInputBytes) {
    throw new InputLimitError(
      backend,
      'input_too_large',
      `The call asked its client for ${bytes} bytes of input requests, more than server.input_rounds.max_input_bytes (${limits.maxInputBytes})`,
    );
  }
}
