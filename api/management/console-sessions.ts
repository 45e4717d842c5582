/**
 * Sign-ins of the web console: a person proves who they are once (the
 * management token, a bearer token `incoming_auth` accepts, or the identity
 * provider), and the browser then holds only a random session id in an
 * `HttpOnly` cookie; the credential itself never reaches the page. Each
 * session has its own CSRF token, which every state-changing request must
 * echo in a header (auth.ts).
 *
 * Sessions are short-lived: `server.console.session_ttl_s` without a request
 * ends one (each request extends it), 12 hours end it whatever happens, and
 * signing out ends it at once. They live in this process: behind a load
 * balancer, a console needs sticky sessions (docs/console.md).
 *
 * What a session remembers is the proof, not the role: the role is worked
 * out again on every request (principal.ts), so a reload that takes a role
 * away, or changes the management token, applies to open sessions at once.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { CallerIdentity } from '../../runtime/access/identity.js';

/** The most a session can last, however active. */
export const SESSION_MAX_MS = 12 * 3600_000;
/** Sessions kept at once; beyond it the least recently used one is ended. */
const MAX_SESSIONS = 1000;

/** How the person signed in; the session is only as good as this proof stays. */
export type SignInProof =
  /** The management token; `digest` is its SHA-256, so a changed token ends the session. */
  | { kind: 'management_token'; digest: string }
  /** An identity of `incoming_auth` (a local token, a JWT, or the identity provider's sign-in). */
  | { kind: 'identity'; identity: CallerIdentity; via: 'bearer' | 'oidc' };

export interface ConsoleSession {
  proof: SignInProof;
  /** Echoed by the page in `X-CSRF-Token` on every request that changes something. */
  csrfToken: string;
  createdAt: number;
  lastSeenAt: number;
}

export const digestOf = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

export class ConsoleSessions {
  /** Keyed by the SHA-256 of the cookie value: the store never holds what the browser sends. */
  private readonly sessions = new Map<string, ConsoleSession>();

  constructor(
    /** `server.console.session_ttl_s` of the running config, in ms (read on each use: reloads apply). */
    private readonly idleMs: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new session; the returned id goes into the cookie and nowhere else. */
  create(proof: SignInProof): { id: string; session: ConsoleSession } {
    const id = randomBytes(32).toString('base64url');
    const at = this.now();
    const session: ConsoleSession = { proof, csrfToken: randomBytes(32).toString('base64url'), createdAt: at, lastSeenAt: at };
    this.sweep();
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    this.sessions.set(digestOf(id), session);
    return { id, session };
  }

  /** The live session of a cookie value, extended by this use; undefined when unknown, expired or ended. */
  use(id: string | undefined): ConsoleSession | undefined {
    if (!id) return undefined;
    const key = digestOf(id);
    const session = this.sessions.get(key);
    if (!session) return undefined;
    const at = this.now();
    if (this.expired(session, at)) {
      this.sessions.delete(key);
      return undefined;
    }
    session.lastSeenAt = at;
    // Re-inserted: the map's order is least recently used first.
    this.sessions.delete(key);
    this.sessions.set(key, session);
    return session;
  }

  /** Signs out: true when there was a session to end. */
  end(id: string | undefined): boolean {
    return id ? this.sessions.delete(digestOf(id)) : false;
  }

  get size(): number {
    return this.sessions.size;
  }

  private expired(s: ConsoleSession, at: number): boolean {
    return at - s.lastSeenAt > this.idleMs() || at - s.createdAt > SESSION_MAX_MS;
  }

  private sweep(): void {
    const at = this.now();
    for (const [key, s] of this.sessions) if (this.expired(s, at)) this.sessions.delete(key);
  }
}
