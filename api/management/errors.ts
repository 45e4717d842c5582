/**
 * Every non-2xx answer of the management API (and of paths no plugin serves)
 * carries the section 7 body `{error, message, details}`, Fastify's own
 * request errors (validation, body parsing, media type, size) and unknown
 * paths included.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../schemas/errors.js';
import { errorBody, errorHeaders, httpStatusOf } from '../error-mapping.js';
import { reportRequestError } from '../request-errors.js';

/** The REST error answer: the status and the `{error, message, details}` body of a typed error. */
export async function restErrorHandler(err: FastifyError | unknown, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const typed = reportRequestError(req, err);
  return reply.code(httpStatusOf(typed)).headers(errorHeaders(typed)).send(errorBody(typed));
}

export function installErrorHandling(app: FastifyInstance, what = 'management endpoint'): void {
  app.setErrorHandler(restErrorHandler);
  app.setNotFoundHandler(async (req, reply) =>
    restErrorHandler(new GatewayError('not_found', `No ${what} ${req.method} ${req.url.split('?')[0]}`), req, reply),
  );
}
