/**
 * `schemas/config.schema.json` from the TypeBox config schema, so CI
 * pipelines can validate configs with any JSON Schema tool.
 *
 *   node dist/schemas/generate-json-schema.js           writes the file (npm run schema)
 *   node dist/schemas/generate-json-schema.js --check   exits 1 if the committed file is stale (npm run lint, CI)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { ConfigSchema } from './config.js';

const here = dirname(fileURLToPath(import.meta.url));
// Compiled to dist/schemas/; the committed file lives in the source tree's schemas/.
const target = join(here, '..', '..', 'schemas', 'config.schema.json');
const schema = { $schema: 'http://json-schema.org/draft-07/schema#', ...(JSON.parse(JSON.stringify(ConfigSchema)) as Record<string, unknown>) };
const text = JSON.stringify(schema, null, 2) + '\n';

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (committed !== text) {
    process.stderr.write(`${target} does not match schemas/config.ts; run \`npm run schema\` and commit the result\n`);
    process.exit(1);
  }
  process.stdout.write('schemas/config.schema.json matches schemas/config.ts\n');
} else {
  writeFileSync(target, text);
}
