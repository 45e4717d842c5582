/**
 * Writes `schemas/config.schema.json` from the TypeBox config schema, so CI
 * pipelines can validate configs with any JSON Schema tool. Run by `npm run build`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { ConfigSchema } from './config.js';

const here = dirname(fileURLToPath(import.meta.url));
// Compiled to dist/schemas/; the committed file lives in the source tree's schemas/.
const target = join(here, '..', '..', 'schemas', 'config.schema.json');
const schema = { $schema: 'http://json-schema.org/draft-07/schema#', ...JSON.parse(JSON.stringify(ConfigSchema)) };
writeFileSync(target, JSON.stringify(schema, null, 2) + '\n');
