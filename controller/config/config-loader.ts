/**
 * Reads desired state: locate the file, parse YAML (keeping line numbers),
 * expand environment variables, resolve `secret:` references, validate against
 * the TypeBox schema with ajv and fill defaults. Any problem becomes a
 * ConfigError listing every key path at fault, so one run shows them all.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LineCounter, parseDocument, isMap, isSeq, isScalar, isNode, type Document } from 'yaml';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import {
  ConfigSchema,
  BackendSchemaByType,
  BACKEND_NAME_PATTERN,
  BACKEND_TYPES,
  DEFAULT_TIMEOUTS,
  SEPARATOR_PATTERN,
  STDIO_ON_BEHALF_OF,
  type GatewayConfig,
  type BackendType,
  type BackendSpec,
} from '../../schemas/config.js';
import { ConfigError, type ConfigProblem } from '../../schemas/errors.js';
import { TOOL_NAME_PATTERN, toolNameProblem } from '../../schemas/tool-name.js';
import { expandEnv } from './env-expand.js';
import { closestKey } from './key-suggestion.js';
import { sessionStoreProblems } from './session-store-check.js';
import { nameProblems } from './name-checks.js';
import { pluginProblems } from './plugin-checks.js';
import { accessProblems } from './access-checks.js';
import { consoleProblems } from './console-checks.js';
import { choiceMessage, foldChoiceUnions } from './choice-errors.js';
import { managementProblems } from './management-checks.js';
import { RESOURCE_PATTERN, RESOURCE_PATTERN_HINT } from '../../schemas/access-config.js';
import { resolveConfigPaths } from './relative-paths.js';
import { mapStrings } from '../../runtime/map-strings.js';
import { privateKeyJwtAuth } from '../../runtime/auth/private-key-jwt.js';

export interface LoadedConfig {
  config: GatewayConfig;
  filePath: string;
  loadedAt: Date;
  /** The file's text as it was read (the console shows it, redacted: api/management/config-text.ts). */
  text: string;
}

/** Resolves `secret:<name>` references inside config strings (see runtime/secrets). */
export type SecretResolver = (value: string, path: string) => string;

export const DEFAULT_CONFIG_FILES = ['config.yaml', 'config.yml'];

export function locateConfigFile(explicit?: string, cwd = process.cwd()): string {
  if (explicit) {
    const p = resolve(cwd, explicit);
    if (!existsSync(p)) throw new ConfigError(`Config file not found: ${p}`, [{ path: '', message: `file not found: ${p}` }]);
    return p;
  }
  for (const name of DEFAULT_CONFIG_FILES) {
    const p = resolve(cwd, name);
    if (existsSync(p)) return p;
  }
  throw new ConfigError(`No config file: looked for ${DEFAULT_CONFIG_FILES.join(', ')} in ${cwd}`, [
    { path: '', message: `no ${DEFAULT_CONFIG_FILES.join(' or ')} in ${cwd}; pass --config <file>` },
  ]);
}

// Compiled once per process: validators are the expensive part of ajv.
// coerceTypes: `${VAR}` expansion always yields a string, so `port: ${PORT:-9000}`
// or `enabled: ${FLAG:-true}` must be turned into the number/boolean the schema wants.
// verbose: an error carries its schema, so an unknown key can be compared with the keys that schema knows.
const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false, coerceTypes: true, verbose: true });
const validateConfig = ajv.compile(ConfigSchema);
const validateBackendByType = Object.fromEntries(BACKEND_TYPES.map((t) => [t, ajv.compile(BackendSchemaByType[t])])) as Record<BackendType, ValidateFunction>;
/** Keys of each backend type, to judge the keys of a backend whose `type` is missing or wrong. */
const backendKeysByType = Object.fromEntries(BACKEND_TYPES.map((t) => [t, Object.keys(propertiesOf(BackendSchemaByType[t]))])) as Record<BackendType, string[]>;
const anyBackendKeys = new Set(Object.values(backendKeysByType).flat());

export function loadConfigFile(filePath: string, opts: { env?: NodeJS.ProcessEnv; resolveSecrets?: SecretResolver } = {}): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(filePath, 'utf8');
  } catch (err) {
    throw new ConfigError(`Cannot read config file ${filePath}: ${(err as Error).message}`, [{ path: '', message: (err as Error).message }]);
  }
  return { config: parseConfigText(text, { ...opts, configDir: dirname(resolve(filePath)) }), filePath, loadedAt: new Date(), text };
}

export interface ParseOptions {
  env?: NodeJS.ProcessEnv;
  resolveSecrets?: SecretResolver;
  /** The config file's folder: relative paths are made absolute against it (see ./relative-paths.ts). */
  configDir?: string;
}

export function parseConfigText(text: string, opts: ParseOptions = {}): GatewayConfig {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    const problems = doc.errors.map((e) => {
      // `linePos` is only filled in with prettyErrors; the offset always is.
      const pos = e.linePos?.[0] ?? lineCounter.linePos(e.pos[0]);
      return { path: '', message: e.message.split('\n')[0], line: pos?.line, column: pos?.col };
    });
    throw new ConfigError(formatProblems('YAML syntax error', problems), problems);
  }
  const raw: unknown = doc.toJS() ?? {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    const problems = [{ path: '', message: 'the top level must be a mapping' }];
    throw new ConfigError(formatProblems('Invalid config', problems), problems);
  }

  const problems: ConfigProblem[] = [];
  let expanded = expandEnv(raw, opts.env ?? process.env, problems) as Record<string, unknown>;
  if (opts.resolveSecrets) expanded = resolveSecretsDeep(expanded, opts.resolveSecrets, problems) as Record<string, unknown>;
  // Schema problems too, so one run shows them all; except at a key whose value
  // could not be expanded (or resolved): that one is already reported.
  const unresolved = problems.map((p) => p.path);
  const spanning = [
    ...nameProblems(expanded),
    ...sessionStoreProblems(expanded),
    ...pluginProblems(expanded, opts.configDir),
    ...accessProblems(expanded, opts.env ?? process.env),
    ...consoleProblems(expanded),
    ...managementProblems(expanded, opts.env ?? process.env),
  ];
  problems.push(...[...schemaProblems(expanded), ...spanning].filter((p) => !unresolved.some((u) => p.path === u || p.path.startsWith(`${u}.`))));
  if (problems.length > 0) {
    for (const p of problems) Object.assign(p, positionOf(doc, lineCounter, p.path));
    throw new ConfigError(formatProblems('Invalid config', problems), problems);
  }
  applyBackendDefaults(expanded as GatewayConfig);
  if (opts.configDir !== undefined) resolveConfigPaths(expanded as GatewayConfig, opts.configDir);
  return expanded as GatewayConfig;
}

function resolveSecretsDeep(value: unknown, resolveSecret: SecretResolver, problems: ConfigProblem[]): unknown {
  return mapStrings(value, (s, path) => {
    if (!s.includes('secret:')) return s;
    try {
      return resolveSecret(s, path.join('.'));
    } catch (err) {
      problems.push({ path: path.join('.'), message: (err as Error).message });
      return s;
    }
  });
}

/**
 * Backends are a union by `type`; ajv's errors for a failed union list every
 * branch. Validate each backend against the schema its `type` selects instead,
 * so the message is about the keys that are actually wrong.
 */
function schemaProblems(cfg: Record<string, unknown>): ConfigProblem[] {
  const backends = cfg.backends;
  const problems: ConfigProblem[] = [];
  const withoutBackends = { ...cfg };
  delete withoutBackends.backends;
  // An `if` error (a plugin's settings failed its `then`) only repeats the errors inside it.
  if (!validateConfig(withoutBackends))
    problems.push(...foldChoiceUnions(validateConfig.errors!.filter((e) => e.keyword !== 'if')).map((e) => toProblem(e, '')));
  Object.assign(cfg, withoutBackends, { backends });
  if (backends === undefined || backends === null) {
    cfg.backends = {};
    return problems;
  }
  if (typeof backends !== 'object' || Array.isArray(backends)) {
    problems.push({ path: 'backends', message: 'must be a mapping of backend name to backend settings' });
    return problems;
  }
  for (const [name, spec] of Object.entries(backends as Record<string, unknown>)) {
    const base = `backends.${name}`;
    if (!new RegExp(BACKEND_NAME_PATTERN).test(name)) {
      problems.push({ path: base, message: 'backend names may use letters, digits, "_", "." and "-" and must start with a letter or digit' });
    } else if (/^(0|[1-9]\d*)$/.test(name)) {
      // JavaScript objects list integer-like keys first: config order (which decides conflicts) would be lost.
      problems.push({ path: base, message: 'a backend name cannot be a plain number (it would lose its place in config order); add a letter' });
    }
    if (!spec || typeof spec !== 'object' || Array.isArray(spec)) {
      problems.push({ path: base, message: 'must be a mapping' });
      continue;
    }
    const type = (spec as { type?: unknown }).type;
    if (!BACKEND_TYPES.includes(type as BackendType)) {
      const choices = BACKEND_TYPES.join(', ');
      problems.push({
        path: `${base}.type`,
        message: type === undefined ? `is required (one of ${choices})` : `must be one of ${choices} (got ${JSON.stringify(type)})`,
      });
      // Which keys are wrong cannot wait for the type: `typ: stdio` is most likely the very key that is missing.
      problems.push(...unknownBackendKeys(spec as Record<string, unknown>, base));
      continue;
    }
    const validate = validateBackendByType[type as BackendType];
    if (!validate(spec)) problems.push(...foldChoiceUnions(validate.errors!).map((e) => toProblem(e, base, type as BackendType)));
    else problems.push(...clientKeyProblems(name, spec as BackendSpec));
  }
  return problems;
}

/** A private_key_jwt setup that cannot sign (no client_id, not a private key, an unusable key type) is a config error, not a connect failure later. */
function clientKeyProblems(name: string, spec: BackendSpec): ConfigProblem[] {
  const obo = spec.type === 'stdio' ? undefined : spec.auth?.type === 'bearer' || spec.auth?.type === 'oauth' ? undefined : spec.auth?.on_behalf_of;
  if (obo?.type === 'token_exchange' && obo.token_endpoint === undefined && obo.issuer === undefined) {
    return [{ path: `backends.${name}.auth.on_behalf_of`, message: 'needs `token_endpoint`, or `issuer` to find it by discovery' }];
  }
  if (obo !== undefined && spec.type === 'sse') {
    return [
      {
        path: `backends.${name}.auth.on_behalf_of`,
        message:
          'needs a streamable-http backend: the legacy SSE transport shares one set of headers among every caller, so no per-caller token can ride on it',
      },
    ];
  }
  if (spec.type === 'stdio' || spec.auth?.type !== 'oauth') return [];
  // A `secret:` reference not resolved here (`config validate`, a registry install) is checked once it is.
  if (spec.auth.private_key?.includes('secret:')) return [];
  try {
    privateKeyJwtAuth(name, spec.auth);
    return [];
  } catch (err) {
    return [{ path: `backends.${name}.auth`, message: (err as Error).message.replace(/^Backend '[^']*': /, '') }];
  }
}

/** Keys of a backend that no backend type knows, with the key each most likely meant. */
function unknownBackendKeys(spec: Record<string, unknown>, base: string): ConfigProblem[] {
  return Object.keys(spec)
    .filter((key) => !anyBackendKeys.has(key))
    .map((key) => ({ path: `${base}.${key}`, message: unknownKeyMessage(key, anyBackendKeys) }));
}

function unknownKeyMessage(key: string, known: Iterable<string>): string {
  const meant = closestKey(key, known);
  return meant === undefined ? 'unknown key' : `unknown key; did you mean \`${meant}\`?`;
}

/** An unknown key of a backend that is a key of another transport says so: `url` on a stdio backend. */
function otherTransportHint(key: string, type: BackendType): string {
  const owners = BACKEND_TYPES.filter((t) => t !== type && backendKeysByType[t].includes(key));
  return owners.length > 0 ? ` (a key of ${owners.join(' and ')} backends, not of ${type})` : '';
}

/** `auth.on_behalf_of` on a stdio backend: not a typo but a wish no process can grant, so the message says why. */
function stdioOnBehalfOf(key: string, type: BackendType, backend: unknown): string | undefined {
  const auth = (backend as { auth?: { on_behalf_of?: unknown } } | undefined)?.auth;
  return type === 'stdio' && key === 'auth' && auth?.on_behalf_of !== undefined ? STDIO_ON_BEHALF_OF : undefined;
}

/** What a pattern means, instead of ajv's `must match pattern "^…$"`; undefined for patterns that read well enough. */
function patternMessage(pattern: string, value: unknown): string | undefined {
  if (pattern === TOOL_NAME_PATTERN) return toolNameProblem(String(value));
  if (pattern === SEPARATOR_PATTERN) return 'may use letters, digits, "_", "-" and "." only (it becomes part of every tool name under `prefix`)';
  if (pattern === RESOURCE_PATTERN) return RESOURCE_PATTERN_HINT;
  return undefined;
}

function propertiesOf(schema: unknown): Record<string, unknown> {
  const props = (schema as { properties?: unknown } | undefined)?.properties;
  return props && typeof props === 'object' ? (props as Record<string, unknown>) : {};
}

function toProblem(e: ErrorObject, base: string, backendType?: BackendType): ConfigProblem {
  const segments = e.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'additionalProperties') segments.push(String(e.params.additionalProperty));
  if (e.keyword === 'required') segments.push(String(e.params.missingProperty));
  const path = [base, ...segments].filter(Boolean).join('.');
  let message = e.message ?? 'is invalid';
  if (e.keyword === 'additionalProperties') {
    const key = String(e.params.additionalProperty);
    message = unknownKeyMessage(key, Object.keys(propertiesOf(e.parentSchema)));
    if (backendType && e.instancePath === '') message = stdioOnBehalfOf(key, backendType, e.data) ?? message + otherTransportHint(key, backendType);
  } else if (e.keyword === 'required') message = 'is required';
  else if (e.keyword === 'pattern') message = patternMessage(String(e.params.pattern), e.data) ?? message;
  else if (e.keyword === 'enum') message = choiceMessage(e.params.allowedValues as unknown[], e.data);
  else if (e.keyword === 'const') message = `${message}: ${JSON.stringify(e.params.allowedValue)}`;
  else if (e.keyword === 'anyOf') message = 'has a value that is not one of the allowed choices';
  return { path, message };
}

function positionOf(doc: Document, lc: LineCounter, path: string): Partial<ConfigProblem> {
  if (!path) return {};
  const segments = path.split('.');
  // Walk up until a node exists: an unknown key is found itself, a missing one points at its parent.
  for (let n = segments.length; n > 0; n--) {
    const offset = keyOffset(doc, segments.slice(0, n));
    if (offset !== undefined) {
      const { line, col } = lc.linePos(offset);
      return { line, column: col };
    }
  }
  return {};
}

function keyOffset(doc: Document, segments: string[]): number | undefined {
  const parent = segments.length === 1 ? doc.contents : doc.getIn(segments.slice(0, -1), true);
  const last = segments[segments.length - 1];
  if (isMap(parent)) {
    const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === last);
    return isNode(pair?.key) ? pair.key.range?.[0] : undefined;
  }
  if (isSeq(parent)) {
    const item = parent.items[Number(last)];
    return isNode(item) ? item.range?.[0] : undefined;
  }
  return undefined;
}

function applyBackendDefaults(cfg: GatewayConfig): void {
  for (const spec of Object.values(cfg.backends)) {
    spec.group ??= 'default';
    spec.enabled ??= true;
    spec.timeouts = { ...DEFAULT_TIMEOUTS, ...spec.timeouts };
  }
}

export function formatProblems(title: string, problems: ConfigProblem[]): string {
  const lines = problems.map((p) => {
    const where = p.line !== undefined ? ` (line ${p.line}${p.column !== undefined ? `, column ${p.column}` : ''})` : '';
    return `  - ${p.path || '<root>'}${where}: ${p.message}`;
  });
  return `${title}:\n${lines.join('\n')}`;
}
