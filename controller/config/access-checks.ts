/**
 * Checks of `incoming_auth` and `authorization` that the schema alone cannot
 * make: each type reads its own keys and needs some of them (`jwt` its
 * issuer, JWKS and audience), local token names and tokens are unique, no
 * local token is the management token (the two stay separate), and every
 * policy's `when` compiles (a syntax or type error, with its place in the
 * expression). Like ./name-checks.ts they run on a config that may be
 * invalid elsewhere.
 */
import type { ConfigProblem } from '../../schemas/errors.js';
import { INCOMING_AUTH_KEYS, INCOMING_AUTH_REQUIRED, INCOMING_AUTH_TYPES, type IncomingAuthType } from '../../schemas/access-config.js';
import { compileCondition, ConditionCompileError } from '../../runtime/access/policy-condition.js';

type Loose = Record<string, unknown>;

const asMap = (v: unknown): Loose | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : undefined);

export function accessProblems(cfg: Loose, env: NodeJS.ProcessEnv): ConfigProblem[] {
  return [...incomingAuthProblems(cfg, env), ...conditionProblems(asMap(cfg.authorization)?.policies)];
}

function conditionProblems(policies: unknown): ConfigProblem[] {
  if (!Array.isArray(policies)) return [];
  return policies.flatMap((policy, i) => {
    const when = asMap(policy)?.when;
    if (typeof when !== 'string' || when === '') return [];
    try {
      compileCondition(when);
      return [];
    } catch (err) {
      if (!(err instanceof ConditionCompileError)) throw err;
      return [{ path: `authorization.policies.${i}.when`, message: `does not compile: ${err.message}` }];
    }
  });
}

function incomingAuthProblems(cfg: Loose, env: NodeJS.ProcessEnv): ConfigProblem[] {
  const auth = asMap(cfg.incoming_auth);
  if (!auth) return [];
  const type = (auth.type ?? 'anonymous') as IncomingAuthType;
  // An unknown type is the schema's to report.
  if (!INCOMING_AUTH_TYPES.includes(type)) return [];
  const problems: ConfigProblem[] = [];
  for (const key of Object.keys(auth)) {
    if (INCOMING_AUTH_KEYS[type].includes(key) || !INCOMING_AUTH_TYPES.some((t) => INCOMING_AUTH_KEYS[t].includes(key))) continue;
    const readers = INCOMING_AUTH_TYPES.filter((t) => INCOMING_AUTH_KEYS[t].includes(key));
    problems.push({ path: `incoming_auth.${key}`, message: `is read only by type ${readers.join(' and ')} (the type is \`${type}\`)` });
  }
  for (const key of INCOMING_AUTH_REQUIRED[type]) {
    if (auth[key] === undefined) problems.push({ path: `incoming_auth.${key}`, message: `is required for type \`${type}\`` });
  }
  if (type === 'local') problems.push(...localTokenProblems(auth.tokens, managementTokens(cfg, env)));
  return problems;
}

function managementTokens(cfg: Loose, env: NodeJS.ProcessEnv): string[] {
  const token = asMap(asMap(cfg.server)?.management)?.token;
  return [typeof token === 'string' ? token : '', env.GATEWAY_MGMT_TOKEN ?? ''].filter(Boolean);
}

function localTokenProblems(tokens: unknown, management: readonly string[]): ConfigProblem[] {
  if (!Array.isArray(tokens)) return [];
  const problems: ConfigProblem[] = [];
  const names = new Map<string, number>();
  const values = new Map<string, number>();
  tokens.forEach((entry, i) => {
    const t = asMap(entry);
    if (!t) return;
    if (typeof t.name === 'string') {
      const first = names.get(t.name);
      if (first !== undefined) problems.push({ path: `incoming_auth.tokens.${i}.name`, message: `'${t.name}' is already the name of tokens.${first}` });
      else names.set(t.name, i);
    }
    if (typeof t.token === 'string') {
      // The messages never quote a token.
      const first = values.get(t.token);
      if (first !== undefined) problems.push({ path: `incoming_auth.tokens.${i}.token`, message: `is the same token as tokens.${first}` });
      else values.set(t.token, i);
      if (management.includes(t.token)) {
        problems.push({ path: `incoming_auth.tokens.${i}.token`, message: 'is the management token; MCP clients and the management API need separate tokens' });
      }
    }
  });
  return problems;
}
