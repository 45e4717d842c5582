/**
 * Authentication of MCP clients (`incoming_auth`), as the running config
 * says: who a request's `Authorization` header makes the caller, or a
 * BearerAuthError (401, or 403 for a missing scope). `anonymous` asks for
 * nothing; `local` compares static tokens; `jwt` and `oidc` verify JWT
 * access tokens. A reload applies to the next request; the verifier (and its
 * cached key set and verified tokens) is rebuilt only when `incoming_auth`
 * itself changed.
 */
import type { JWTVerifyGetKey } from 'jose';
import type { IncomingAuthSpec, IncomingAuthType } from '../../schemas/access-config.js';
import { ANONYMOUS, type CallerIdentity } from './identity.js';
import { bearerToken } from './bearer.js';
import { LocalTokens } from './local-tokens.js';
import { JwtVerifier } from './jwt-verifier.js';
import { discoveredKeys, remoteKeys, type KeySourceOptions } from './signing-keys.js';

interface Authenticator {
  identify(token: string): CallerIdentity | Promise<CallerIdentity>;
}

export class IncomingAuth {
  private spec!: IncomingAuthSpec;
  private fingerprint = '';
  private authenticator?: Authenticator;

  constructor(
    spec: IncomingAuthSpec,
    private readonly keyOptions: KeySourceOptions = {},
  ) {
    this.configure(spec);
  }

  get type(): IncomingAuthType {
    return this.spec.type;
  }

  /** The settings in force (the protected resource metadata and the challenges read them). */
  get settings(): Readonly<IncomingAuthSpec> {
    return this.spec;
  }

  /** Applies a (re)loaded `incoming_auth`; true when it changed. */
  configure(spec: IncomingAuthSpec): boolean {
    const fingerprint = JSON.stringify(spec);
    if (fingerprint === this.fingerprint) return false;
    this.fingerprint = fingerprint;
    this.spec = spec;
    this.authenticator = authenticatorFor(spec, this.keyOptions);
    return true;
  }

  /** The caller a request's `Authorization` header makes; synchronous unless a JWT must be verified. */
  authenticate(authorization: string | undefined): CallerIdentity | Promise<CallerIdentity> {
    if (!this.authenticator) return ANONYMOUS;
    return this.authenticator.identify(bearerToken(authorization));
  }
}

function authenticatorFor(spec: IncomingAuthSpec, keyOptions: KeySourceOptions): Authenticator | undefined {
  switch (spec.type) {
    case 'anonymous':
      return undefined;
    case 'local':
      return new LocalTokens(spec.tokens ?? []);
    case 'jwt':
    case 'oidc': {
      // The config loader makes sure both are there (controller/config/access-checks.ts).
      const { issuer = '', audience = '' } = spec;
      const keys: JWTVerifyGetKey = spec.type === 'jwt' ? remoteKeys(spec.jwks_uri ?? '', keyOptions) : discoveredKeys(issuer, keyOptions);
      return new JwtVerifier({ ...spec, type: spec.type, issuer, audience }, keys);
    }
  }
}
