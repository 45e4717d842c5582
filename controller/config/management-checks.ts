/**
 * The management API may not be the way around client authentication: a
 * config whose MCP side requires identities (`incoming_auth` other than
 * anonymous) or applies policies (`authorization.enabled`) needs a
 * management token (or management roles for its identities, which close the
 * API as a token does), or says `server.management.open: true` for a trusted
 * network (docs/incoming-auth.md); a management token, wherever it comes
 * from, is long and no placeholder (schemas/management-token.ts); and a
 * management listener of its own has a port of its own. Checked on
 * every load, so a start is refused and a reload is refused with the running
 * config kept. Like the other cross-key checks it runs on a config that may
 * be invalid elsewhere.
 */
import type { ConfigProblem } from '../../schemas/errors.js';
import { managementTokenProblem } from '../../schemas/management-token.js';

type Loose = Record<string, unknown>;

const asMap = (v: unknown): Loose | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : undefined);

/** What makes the MCP side require identities, in the words of the config; empty when nothing does. */
function clientAuthKeys(cfg: Loose): string[] {
  const keys: string[] = [];
  const type = asMap(cfg.incoming_auth)?.type;
  if (typeof type === 'string' && type !== 'anonymous') keys.push(`\`incoming_auth.type: ${type}\``);
  const enabled = asMap(cfg.authorization)?.enabled;
  // Before the schema coerces it: `${VAR}` makes a string.
  if (enabled === true || enabled === 'true') keys.push('`authorization.enabled: true`');
  return keys;
}

export function managementProblems(cfg: Loose, env: NodeJS.ProcessEnv): ConfigProblem[] {
  return [...listenerProblems(cfg), ...tokenProblems(cfg, env)];
}

/** The management listener needs a port of its own (`0`: any free one). */
function listenerProblems(cfg: Loose): ConfigProblem[] {
  const server = asMap(cfg.server);
  const management = asMap(server?.management);
  if (management?.host !== undefined && management.port === undefined) {
    return [{ path: 'server.management.host', message: 'applies to the management listener of `server.management.port`, which is not set' }];
  }
  const port = Number(management?.port);
  const mcpPort = Number(server?.port ?? 9000);
  if (management?.port === undefined || port === 0 || port !== mcpPort) return [];
  return [{ path: 'server.management.port', message: `is the MCP port (server.port: ${mcpPort}); the management listener needs a port of its own` }];
}

function tokenProblems(cfg: Loose, env: NodeJS.ProcessEnv): ConfigProblem[] {
  const management = asMap(asMap(cfg.server)?.management);
  const fromFile = typeof management?.token === 'string' ? management.token : '';
  // The environment wins (api/management/auth.ts): only the token in use is judged, each where it came from.
  const token = env.GATEWAY_MGMT_TOKEN || fromFile;
  if (token !== '') {
    const problem = managementTokenProblem(token);
    if (problem === undefined) return [];
    return [
      env.GATEWAY_MGMT_TOKEN
        ? { path: 'server.management.token', message: `(GATEWAY_MGMT_TOKEN) ${problem}` }
        : { path: 'server.management.token', message: problem },
    ];
  }
  // Open by choice; or closed by roles: only identities with a management role get in (api/management/principal.ts).
  if (management?.open === true || management?.roles !== undefined) return [];
  const keys = clientAuthKeys(cfg);
  if (keys.length === 0) return [];
  return [
    {
      path: 'server.management',
      message:
        `no management token, while MCP clients must authenticate (${keys.join(', ')}): the management API (POST /manage/v1/tools/call, /reload, …) would be open to anyone who reaches the port. ` +
        'Set a management token (GATEWAY_MGMT_TOKEN, or `server.management.token`), or, on a trusted network only, `server.management.open: true`',
    },
  ];
}
