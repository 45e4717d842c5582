/**
 * Every non-2xx answer of the management API carries the section 7 body
 * `{error, message, details}` (api/send-error.ts), Fastify's own request errors
 * (validation, body parsing, media type, size) and unknown paths included.
 */
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../schemas/errors.js';
import { sendError } from '../send-error.js';

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (err, req, reply) => sendError(req, reply, err));
  app.setNotFoundHandler(async (req, reply) =>
    sendError(req, reply, new GatewayError('not_found', `No management endpoint ${req.method} ${req.url.split('?')[0]}`)),
  );
}
