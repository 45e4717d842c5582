/**
 * The management API may not be the way around client authentication: a
 * config whose MCP side requires identities (`incoming_auth` other than
 * anonymous) or applies policies (`authorization.enabled`) needs a
 * management token, or says `server.management.open: true` for a trusted
 * network (docs/incoming-auth.md). Checked on every load, so a start is
 * refused and a reload is refused with the running config kept. Like the
 * other cross-key checks it runs on a config that may be invalid elsewhere.
 */
import type { ConfigProblem } from '../../schemas/errors.js';

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
  const management = asMap(asMap(cfg.server)?.management);
  const token = env.GATEWAY_MGMT_TOKEN || (typeof management?.token === 'string' ? management.token : '');
  if (token !== '' || management?.open === true) return [];
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
