/**
 * What every surface does with a request's error before formatting it: turn
 * it into a typed error (api/error-mapping.ts) and log it as it deserves.
 * Expected outcomes (a typed error) are not logged with a stack; an
 * availability error is a warning; anything else is an internal error and is.
 * Each plugin's error handler then answers in its own format.
 */
import type { FastifyRequest } from 'fastify';
import type { GatewayError } from '../schemas/errors.js';
import { httpStatusOf, isExpected, toGatewayError } from './error-mapping.js';

export function reportRequestError(req: FastifyRequest, err: unknown): GatewayError {
  const typed = toGatewayError(err);
  if (!isExpected(typed)) req.log.error({ err, url: req.url }, 'request failed');
  else if (httpStatusOf(typed) >= 500) req.log.warn({ url: req.url, error: typed.code }, typed.message);
  return typed;
}
