/**
 * Checks of the management roles and the console's sign-in that span keys:
 * both take their identities from `incoming_auth`, so they mean nothing (and
 * would silently grant nothing) when it is `anonymous`; sign-in with the
 * identity provider needs one (`jwt` or `oidc`). Like ./access-checks.ts they
 * run on a config that may be invalid elsewhere.
 */
import type { ConfigProblem } from '../../schemas/errors.js';

type Loose = Record<string, unknown>;

const asMap = (v: unknown): Loose | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : undefined);

export function consoleProblems(cfg: Loose): ConfigProblem[] {
  const server = asMap(cfg.server);
  const type = asMap(cfg.incoming_auth)?.type ?? 'anonymous';
  const problems: ConfigProblem[] = [];
  if (asMap(server?.management)?.roles !== undefined && type === 'anonymous') {
    problems.push({
      path: 'server.management.roles',
      message: 'needs identities: set incoming_auth.type to local, jwt or oidc (with anonymous, only the management token can sign in)',
    });
  }
  if (asMap(server?.console)?.oidc !== undefined && type !== 'jwt' && type !== 'oidc') {
    problems.push({
      path: 'server.console.oidc',
      message: `signs in with the identity provider of incoming_auth, which must be jwt or oidc (it is ${String(type)})`,
    });
  }
  return problems;
}
