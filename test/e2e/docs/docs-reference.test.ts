/**
 * The reference docs against their single sources: every config key of the
 * generated JSON Schema is in docs/configuration.md; every management route a
 * running gateway registers is in docs/management-api.md's endpoint table, and
 * the table names no route that does not exist; every error code of
 * schemas/errors.ts is there with the HTTP status api/error-mapping.ts gives
 * it; every YAML config example in the docs loads; the README links every doc.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway-harness.js';
import { parseConfigText } from '../../../controller/config/config-loader.js';
import { httpStatusOf } from '../../../api/error-mapping.js';
import { GatewayError, type ErrorCode } from '../../../schemas/errors.js';

const read = (path: string): string => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

/** `<name>`, `<original>`, … all stand for "any key of this map". */
const normalize = (path: string): string => path.replace(/<[^>]*>/g, '<>');

/** Every `code span` of a Markdown text, normalized. */
const codeSpans = (markdown: string): string[] => [...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => normalize(m[1]!.trim()));

/** The text of a `## Heading` section, up to the next heading of that level. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`no section "## ${heading}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}

interface JsonSchemaNode {
  properties?: Record<string, JsonSchemaNode>;
  patternProperties?: Record<string, JsonSchemaNode>;
  anyOf?: JsonSchemaNode[];
  items?: JsonSchemaNode;
}

/** Every key path of the config schema: `server.host`, `backends.<>.auth.client_id`, `registries[].url`, … */
function configKeyPaths(node: JsonSchemaNode, prefix = '', out = new Set<string>()): Set<string> {
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    const path = prefix ? `${prefix}.${key}` : key;
    out.add(path);
    configKeyPaths(child, path, out);
  }
  for (const branch of node.anyOf ?? []) configKeyPaths(branch, prefix, out);
  // A map of named entries (backends, renames); maps of plain strings (env, headers, labels) have no keys of their own.
  for (const child of Object.values(node.patternProperties ?? {})) configKeyPaths(child, `${prefix}.<>`, out);
  if (node.items) configKeyPaths(node.items, `${prefix}[]`, out);
  return out;
}

/** A path is documented by a code span naming it, or naming a key below it. */
const documents = (spans: readonly string[], path: string) => spans.some((s) => s === path || s.startsWith(`${path}.`) || s.startsWith(`${path}[`));

describe('docs/configuration.md', () => {
  const doc = read('docs/configuration.md');
  const schema = JSON.parse(read('schemas/config.schema.json')) as JsonSchemaNode;
  const paths = [...configKeyPaths(schema)];

  it('the schema walk finds the keys of every section (so the check below checks something)', () => {
    for (const p of [
      'server.allowed_origins',
      'backends.<>.auth.client_id',
      'backends.<>.container.pids',
      'registries[].timeout_s',
      'containers.defaults.network',
    ])
      expect(paths).toContain(p);
  });

  it('names every key of schemas/config.schema.json (backend keys relative to backends.<name>, in the Backends section)', () => {
    const everywhere = codeSpans(doc);
    const backendSection = codeSpans(section(doc, 'Backends'));
    const missing = paths.filter((path) => {
      const backendKey = /^backends\.<>\.(.+)$/.exec(path)?.[1];
      return backendKey ? !documents(backendSection, backendKey) : !documents(everywhere, path);
    });
    expect(
      missing.map((p) => p.replace(/<>/g, '<name>')),
      'config keys missing from docs/configuration.md',
    ).toEqual([]);
  });
});

describe('docs/management-api.md: endpoints', () => {
  const doc = read('docs/management-api.md');
  /** `METHOD /path` code spans of the first column of the Endpoints table (paths relative to /manage/v1). */
  const documented = section(doc, 'Endpoints')
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`(GET|POST|PUT|PATCH|DELETE) ([^`]+)`/g)].map((m) => `${m[1]} ${m[2]}`))
    .map((e) => e.replace(/^(\w+) \/manage\/v1(?=\/|$)/, '$1 ').replace(/ $/, ' /'));
  let h: Harness;
  let served: string[];

  beforeAll(async () => {
    h = await startGateway({ backends: {} });
    // The API's index lists every route registered with a summary, as the OpenAPI document does.
    const index = (await (await fetch(`${h.url}/manage/v1`)).json()) as { endpoints: Array<{ method: string; path: string }> };
    served = [...index.endpoints.map((e) => `${e.method} ${e.path.replace(/^\/manage\/v1/, '')}`), 'GET /', 'GET /openapi.json'];
  });
  afterAll(async () => {
    await h?.close();
  });

  it('reads both lists (so the checks below check something)', () => {
    expect(served).toContain('POST /reauth/{name}');
    expect(served.length).toBeGreaterThan(20);
    expect(documented).toContain('GET /status');
  });

  it('documents every route the gateway serves', () => {
    expect(
      served.filter((route) => !documented.includes(route)),
      'routes missing from the Endpoints table',
    ).toEqual([]);
  });

  it('documents no route the gateway does not serve', () => {
    expect(
      documented.filter((route) => !served.includes(route)),
      'Endpoints table rows with no such route',
    ).toEqual([]);
  });
});

describe('docs/management-api.md: errors', () => {
  const doc = read('docs/management-api.md');
  const union = /export type ErrorCode =([^;]+);/.exec(read('schemas/errors.ts'))?.[1] ?? '';
  const codes = [...union.matchAll(/'([a-z_]+)'/g)].map((m) => m[1] as ErrorCode);
  /** Rows of the error table: status, then the `error` code. */
  const rows = section(doc, 'Errors')
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) => line.split('|').map((cell) => cell.trim()))
    .map((cells) => ({ status: cells[1]!, code: /^`([a-z_]+)`$/.exec(cells[2] ?? '')?.[1] }))
    // Body rows only: the header names the column `error` too.
    .filter((row): row is { status: string; code: string } => row.code !== undefined && /^\d{3}$/.test(row.status));

  it('reads the ErrorCode union (so the checks below check something)', () => {
    expect(codes).toContain('internal_error');
    expect(codes).toContain('forbidden');
    expect(codes.length).toBeGreaterThan(25);
  });

  it('lists every error code with the status api/error-mapping.ts gives it', () => {
    const wrong = codes
      .map((code) => ({ code, status: String(httpStatusOf(new GatewayError(code, 'x'))) }))
      .filter(({ code, status }) => !rows.some((r) => r.code === code && r.status === status))
      .map(({ code, status }) => `${code} (${status})`);
    expect(wrong, 'error codes missing from the table, or with another status').toEqual([]);
  });

  it('lists no code that does not exist', () => {
    expect(rows.map((r) => r.code).filter((c) => !codes.includes(c as ErrorCode))).toEqual([]);
  });
});

describe('YAML config examples in the docs', () => {
  const files = [
    'README.md',
    'docs/configuration.md',
    'docs/containers.md',
    'docs/oauth.md',
    'docs/skills.md',
    'docs/registry.md',
    'docs/tool-pinning.md',
    'docs/plugins.md',
    'docs/incoming-auth.md',
  ];
  // Any `${VAR}` an example uses gets a value of its own, long enough to be a credential.
  const env = new Proxy({}, { get: (_t, name) => (typeof name === 'string' ? `example-${name}-0123456789` : undefined) }) as NodeJS.ProcessEnv;
  const examples = files.flatMap((file) => [...read(file).matchAll(/```yaml\n([\s\S]*?)```/g)].map((m, i) => ({ name: `${file} #${i + 1}`, text: m[1]! })));

  it('finds the examples', () => {
    expect(examples.filter((e) => e.name.startsWith('README.md')).length).toBeGreaterThan(0);
    expect(examples.filter((e) => e.name.startsWith('docs/configuration.md')).length).toBeGreaterThan(0);
  });

  it('every one loads as a config', () => {
    const failures = examples.flatMap(({ name, text }) => {
      try {
        parseConfigText(text, { env });
        return [];
      } catch (err) {
        return [`${name}: ${(err as Error).message}`];
      }
    });
    expect(failures).toEqual([]);
  });
});

describe('README.md', () => {
  it('links every doc in docs/ from its Documentation list', () => {
    const list = section(read('README.md'), 'Documentation');
    const docs = readdirSync(new URL('../../../docs', import.meta.url)).filter((f) => f.endsWith('.md'));
    expect(docs.length).toBeGreaterThan(5);
    expect(
      docs.filter((f) => !list.includes(`(docs/${f}`)),
      'docs missing from the README Documentation list',
    ).toEqual([]);
  });
});
