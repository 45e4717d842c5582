/**
 * Who is asking the management API, and as what role
 * (docs/management-api.md#roles):
 *
 *  - `Authorization: Bearer <management token>`: `admin`;
 *  - `Authorization: Bearer <token>` that `incoming_auth` accepts (a local
 *    token, a JWT), when `server.management.roles` is set: the role it maps
 *    the identity to, or a 403 when it maps it to none;
 *  - the console's session cookie: the role its sign-in proof has now;
 *  - nothing, when neither a token nor roles are configured: the API is
 *    open, and everyone is `admin` (as before roles existed);
 *  - else 401.
 *
 * The same rules make a sign-in (routes/session.ts): the console can never
 * do more than the credential it was given.
 */
import type { FastifyRequest } from 'fastify';
import type { GatewayConfig } from '../../schemas/config.js';
import { BearerAuthError, GatewayError, InsufficientRoleError } from '../../schemas/errors.js';
import type { ManagementRole } from '../../schemas/management-roles.js';
import type { IncomingAuth } from '../../runtime/access/incoming-auth.js';
import { managementRoleOf } from '../../runtime/access/management-role.js';
import { managementToken, tokenMatches, MANAGEMENT_CHALLENGE } from './auth.js';
import { digestOf, type ConsoleSession, type ConsoleSessions, type SignInProof } from './console-sessions.js';
import { sessionCookieOf } from './session-cookie.js';

export type Credential = 'open' | 'management_token' | 'bearer' | 'console_session';

export interface Principal {
  /** The person's user id (a JWT `sub`, a local token's `name`); null for the management token and an open API. */
  user: string | null;
  /** Roles of that identity (what the authorization policies see); [] without one. */
  roles: readonly string[];
  role: ManagementRole;
  credential: Credential;
  /** The console session the request came with: its CSRF token guards every change. */
  session?: ConsoleSession;
}

export interface PrincipalSources {
  /** The running config (token and roles follow reloads). */
  config(): GatewayConfig;
  /** `incoming_auth` of the MCP endpoints: the same identities, the same verification. */
  incomingAuth: IncomingAuth;
  sessions: ConsoleSessions;
}

const OPEN: Principal = Object.freeze({ user: null, roles: [], role: 'admin', credential: 'open' });

export class Principals {
  constructor(private readonly src: PrincipalSources) {}

  /** No token and no roles: the API asks nobody for anything. */
  get open(): boolean {
    const config = this.src.config();
    return managementToken(config) === undefined && config.server.management.roles === undefined;
  }

  /** The caller of a request, or the refusal (401, 403) to throw. */
  async of(req: FastifyRequest): Promise<Principal> {
    if (req.headers.authorization !== undefined) {
      if (this.open) return OPEN;
      return (await this.fromBearer(req.headers.authorization)).principal;
    }
    const session = this.sessionOf(req);
    if (session) return session;
    if (this.open) return OPEN;
    throw new BearerAuthError('Missing bearer token', {}, MANAGEMENT_CHALLENGE);
  }

  /** The principal of a console session cookie, when the session is live and its proof still holds. */
  sessionOf(req: FastifyRequest): Principal | undefined {
    const id = sessionCookieOf(req);
    const session = this.src.sessions.use(id);
    if (!session) return undefined;
    const principal = this.fromProof(session.proof);
    if (!principal) {
      // The token changed or the role was taken away: the sign-in is over.
      this.src.sessions.end(id);
      return undefined;
    }
    return { ...principal, credential: 'console_session', session };
  }

  /** A bearer credential: the principal it makes and the proof a console session keeps of it. */
  async fromBearer(authorization: string): Promise<{ principal: Principal; proof: SignInProof }> {
    const config = this.src.config();
    const token = managementToken(config);
    if (token !== undefined && tokenMatches(authorization, token)) {
      return {
        principal: { user: null, roles: [], role: 'admin', credential: 'management_token' },
        proof: { kind: 'management_token', digest: digestOf(token) },
      };
    }
    if (config.server.management.roles === undefined || this.src.incomingAuth.type === 'anonymous') {
      throw new BearerAuthError('Invalid bearer token', { error: 'invalid_token' }, MANAGEMENT_CHALLENGE);
    }
    let identity;
    try {
      identity = await this.src.incomingAuth.authenticate(authorization);
    } catch (err) {
      throw err instanceof BearerAuthError ? err.withChallenge(MANAGEMENT_CHALLENGE) : err;
    }
    const proof: SignInProof = { kind: 'identity', identity, via: 'bearer' };
    const principal = this.fromProof(proof);
    if (!principal) throw new InsufficientRoleError('viewer', null, 'the management API');
    return { principal: { ...principal, credential: 'bearer' }, proof };
  }

  /** What a proof is worth under the running config; undefined when nothing any more. */
  fromProof(proof: SignInProof): Omit<Principal, 'credential'> | undefined {
    const config = this.src.config();
    if (proof.kind === 'management_token') {
      const token = managementToken(config);
      return token !== undefined && digestOf(token) === proof.digest ? { user: null, roles: [], role: 'admin' } : undefined;
    }
    const role = managementRoleOf(proof.identity, config.server.management.roles);
    if (role === undefined) return undefined;
    return { user: proof.identity.userId ?? null, roles: proof.identity.roles, role };
  }

  /** The identity provider sign-in made this identity (the console's OIDC callback). */
  signInWithIdentity(identity: SignInProof & { kind: 'identity' }): { principal: Omit<Principal, 'credential'>; proof: SignInProof } {
    const principal = this.fromProof(identity);
    if (!principal) throw new InsufficientRoleError('viewer', null, 'the console');
    return { principal, proof: identity };
  }
}

/** A refusal a route may throw when its credential is fine but its CSRF token is not. */
export const csrfRefusal = (why: string) =>
  new GatewayError('forbidden', `Forbidden: ${why} (the console sends X-CSRF-Token with every change)`, { reason: 'csrf' });
