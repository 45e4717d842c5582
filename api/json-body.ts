/**
 * The JSON body parser of both plugins. An empty body means "no body"
 * (Fastify's default parser rejects it): a DELETE or a bodiless POST
 * /shutdown that still names `Content-Type: application/json` is not an
 * error. Prototype-poisoning keys (`__proto__`, `constructor.prototype`) are
 * refused, as by default. JSON nested deeper than MAX_JSON_DEPTH is refused
 * before it is parsed: a body 200,000 levels deep would otherwise overflow
 * the stack later, while a backend request is serialised, and be reported as
 * the backend's failure.
 */
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../schemas/errors.js';

/** Deeper than any tool argument a person or a model writes; far below what overflows the stack. */
export const MAX_JSON_DEPTH = 128;

export function allowEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(new GatewayError('invalid_message', `Invalid Request: JSON nested deeper than ${MAX_JSON_DEPTH} levels`, { max_depth: MAX_JSON_DEPTH }));
    }
    void parseJson(req, text, done);
  });
}

/** Whether the arrays and objects of a JSON text nest deeper than `max` (one pass over the text, strings skipped). */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
