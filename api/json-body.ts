/**
 * JSON bodies where an empty body means "no body" (Fastify's default parser
 * rejects it): a DELETE or a bodiless POST /shutdown that still names
 * `Content-Type: application/json` is not an error. Prototype-poisoning keys
 * (`__proto__`, `constructor.prototype`) are refused, as by default.
 */
import type { FastifyInstance } from 'fastify';

export function allowEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if ((body as string).trim() === '') return done(null, undefined);
    void parseJson(req, body as string, done);
  });
}
