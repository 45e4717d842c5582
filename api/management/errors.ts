/**
 * Every non-2xx answer of the management API carries the section 7 body
 * `{error, message, details}`. Typed errors map through api/error-mapping.ts;
 * Fastify's own client errors (validation, body parsing, media type, size)
 * are first turned into typed errors here.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, type ErrorCode } from '../../schemas/errors.js';
import { errorBody, httpStatusOf } from '../error-mapping.js';

const CLIENT_ERROR_CODES: Record<number, ErrorCode> = {
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/** A Fastify request error as a typed error; undefined for anything that is not the client's fault. */
export function fromFastifyError(err: FastifyError): GatewayError | undefined {
  if (err.validation) {
    const location = err.validationContext ?? '';
    const problems = err.validation.map((v) => {
      const path = `${location}${v.instancePath}`;
      if (v.keyword === 'required') return { path: `${path}/${String(v.params.missingProperty)}`, message: 'is required' };
      if (v.keyword === 'enum') return { path, message: `must be one of: ${(v.params.allowedValues as string[]).join(', ')}` };
      // A regex means nothing to a caller; the schema's description says what is expected.
      if (v.keyword === 'pattern') {
        const description = (v as { parentSchema?: { description?: string } }).parentSchema?.description;
        return { path, message: description ? `is not valid (${description})` : 'is not in the expected format' };
      }
      return { path, message: v.message ?? 'is invalid' };
    });
    const first = problems[0];
    const message = first ? `${first.path} ${first.message}` : err.message;
    return new GatewayError('bad_request', message, { location, problems });
  }
  const status = err.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  const code = CLIENT_ERROR_CODES[status] ?? 'bad_request';
  return new GatewayError(code, err.message, err.code ? { fastify_code: err.code } : {});
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const typed = err instanceof GatewayError ? err : fromFastifyError(err);
    const status = httpStatusOf(typed ?? err);
    if (status >= 500) req.log.error({ err, url: req.url }, 'management API request failed');
    return reply.code(status).send(errorBody(typed ?? err));
  });
  app.setNotFoundHandler(async (req, reply) =>
    reply.code(404).send(errorBody(new GatewayError('not_found', `No management endpoint ${req.method} ${req.url.split('?')[0]}`))),
  );
}
