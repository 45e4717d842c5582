/**
 * Request validation of the management API, separate from the MCP endpoints:
 * query strings and path parameters are coerced from text (`limit=5` is a
 * number), JSON bodies are not (`{"tool": 5}` is a 400, not the tool "5").
 * An empty or absent body counts as `{}`, so `POST /shutdown` needs none.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { allowEmptyJsonBodies } from '../json-body.js';

// verbose: errors carry their schema, so a pattern failure can be explained by its description.
const common = { useDefaults: true, allErrors: false, strict: false, verbose: true } as const;
const coercing = new Ajv({ ...common, coerceTypes: true });
const exact = new Ajv({ ...common, coerceTypes: false });

export function installValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart !== 'body') return coercing.compile(schema);
    const validate: ValidateFunction = exact.compile(schema);
    return (data: unknown) => {
      const value = data === undefined || data === null ? {} : data;
      return validate(value) ? { value } : { error: validate.errors ?? [] };
    };
  });

  allowEmptyJsonBodies(app);
}
