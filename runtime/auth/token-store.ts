/**
 * What the gateway keeps per OAuth backend between runs: tokens, the client
 * it registered (dynamic registration or a metadata document URL) and the
 * discovery results, in `<state>/tokens/<backend>.json`, mode 0600.
 *
 * Reads and writes are synchronous on purpose: the file is tiny, it is read
 * once per backend when its provider is created (inside the synchronous
 * createTransport path) and written only when tokens change, and a
 * synchronous write-then-rename can never interleave with another one.
 *
 * Every access token, refresh token and client secret is registered with the
 * redactor as it is loaded or saved, so no log line can carry it; a replaced
 * value is dropped from the redactor again so that it does not grow with
 * every refresh.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { OAuthClientInformationFullSchema, OAuthClientInformationSchema, OAuthTokensSchema } from '@modelcontextprotocol/core';
import type { OAuthClientInformationMixed, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client';
import { BACKEND_NAME_PATTERN } from '../../schemas/config.js';
import { MIN_SECRET_LENGTH, type Redactor } from '../observability/logging/redactor.js';

export const FORMAT_VERSION = 1;

/** The file's content. Everything but `version` and `server_url` is optional. */
export interface StoredAuthorization {
  version: typeof FORMAT_VERSION;
  /** The backend URL these credentials belong to: another URL in the config makes them void. */
  server_url: string;
  /** As the SDK handed them over (with its `issuer` stamp). */
  tokens?: OAuthTokens;
  /** Epoch milliseconds at which the access token expires, from `expires_in` when it was saved. */
  expires_at?: number;
  /** A client the gateway registered itself; a pre-registered `client_id` stays in the config. */
  client?: OAuthClientInformationMixed;
  discovery?: OAuthDiscoveryState;
}

/**
 * What the OAuth providers read and write (runtime/auth/provider-base.ts):
 * a backend's file (TokenStore), or one user's slot of a backend that acts
 * for each user (runtime/auth/user-token-slot.ts). Reads are synchronous:
 * the SDK's `auth()` asks for them inside one flow.
 */
export interface AuthorizationStore {
  readonly tokens: OAuthTokens | undefined;
  readonly expiresAt: number | undefined;
  readonly client: OAuthClientInformationMixed | undefined;
  readonly discovery: OAuthDiscoveryState | undefined;
  /** Replaces whatever the parts name; `undefined` removes that part. */
  update(parts: Partial<Pick<StoredAuthorization, 'tokens' | 'client' | 'discovery'>>): void;
  /** Forgets everything. */
  clear(): void;
}

/** What both stores answer from the authorization they hold. */
export abstract class HeldAuthorization {
  protected abstract data: StoredAuthorization;

  get tokens(): OAuthTokens | undefined {
    return this.data.tokens;
  }

  get expiresAt(): number | undefined {
    return this.data.expires_at;
  }

  get client(): OAuthClientInformationMixed | undefined {
    return this.data.client;
  }

  get discovery(): OAuthDiscoveryState | undefined {
    return this.data.discovery;
  }
}

/** The stored form of `parts` applied to `data`: a token's expiry is noted from its `expires_in` now. */
export function withParts(data: StoredAuthorization, parts: Partial<Pick<StoredAuthorization, 'tokens' | 'client' | 'discovery'>>): StoredAuthorization {
  const next: StoredAuthorization = { ...data };
  if ('tokens' in parts) {
    next.tokens = parts.tokens;
    next.expires_at = parts.tokens?.expires_in !== undefined ? Date.now() + parts.tokens.expires_in * 1000 : undefined;
  }
  if ('client' in parts) next.client = parts.client;
  if ('discovery' in parts) next.discovery = parts.discovery;
  return next;
}

/** `<dir>/<backend>.json`; the name pattern keeps it inside `dir`. */
export function tokenFile(dir: string, backend: string): string {
  if (!new RegExp(BACKEND_NAME_PATTERN).test(backend)) throw new Error(`Invalid backend name for a token file: ${JSON.stringify(backend)}`);
  return join(dir, `${backend}.json`);
}

export class TokenStore extends HeldAuthorization implements AuthorizationStore {
  protected data: StoredAuthorization;

  constructor(
    readonly file: string,
    private readonly serverUrl: string,
    private readonly redactor: Redactor,
  ) {
    super();
    this.data = this.load();
  }

  /** Replaces whatever the parts name; `undefined` removes that part. */
  update(parts: Partial<Pick<StoredAuthorization, 'tokens' | 'client' | 'discovery'>>): void {
    const next = withParts(this.data, parts);
    this.registerSecrets(next);
    const replaced = secretsOf(this.data).filter((s) => !secretsOf(next).includes(s));
    this.data = next;
    this.write();
    for (const secret of replaced) this.redactor.unregister(secret);
  }

  /** Forgets everything (the file is removed). */
  clear(): void {
    const old = secretsOf(this.data);
    this.data = { version: FORMAT_VERSION, server_url: this.serverUrl };
    rmSync(this.file, { force: true });
    for (const secret of old) this.redactor.unregister(secret);
  }

  private load(): StoredAuthorization {
    const empty: StoredAuthorization = { version: FORMAT_VERSION, server_url: this.serverUrl };
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return empty;
      throw err;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // A damaged file holds nothing usable; the next save replaces it.
      return empty;
    }
    const stored = validStored(parsed);
    if (!stored || stored.server_url !== this.serverUrl) return empty;
    this.registerSecrets(stored);
    return stored;
  }

  /** Write to a private temporary file, then rename: readers see the old or the new file, never half of one. */
  private write(): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      writeFileSync(tmp, `${JSON.stringify(this.data, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      renameSync(tmp, this.file);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  }

  private registerSecrets(data: StoredAuthorization): void {
    for (const secret of secretsOf(data)) this.redactor.register(secret);
  }
}

/**
 * The values to keep out of logs. One shorter than the redactor's minimum
 * cannot be redacted without mangling ordinary text; no real token is that short.
 */
export function secretsOf(data: StoredAuthorization): string[] {
  const client = data.client as { client_secret?: string } | undefined;
  return [data.tokens?.access_token, data.tokens?.refresh_token, client?.client_secret].filter(
    (s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH,
  );
}

/** The parts of a file that are well-formed; a malformed part is dropped rather than handed to the SDK. */
export function validStored(value: unknown): StoredAuthorization | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (v.version !== FORMAT_VERSION || typeof v.server_url !== 'string') return undefined;
  const stored: StoredAuthorization = { version: FORMAT_VERSION, server_url: v.server_url };
  const tokens = OAuthTokensSchema.safeParse(v.tokens);
  if (tokens.success) {
    stored.tokens = tokens.data;
    if (typeof v.expires_at === 'number') stored.expires_at = v.expires_at;
  }
  // A registered client keeps its metadata (redirect_uris); a metadata-document client has only an id.
  const client = OAuthClientInformationFullSchema.safeParse(v.client);
  const bareClient = OAuthClientInformationSchema.safeParse(v.client);
  if (client.success) stored.client = client.data;
  else if (bareClient.success) stored.client = bareClient.data;
  const discovery = v.discovery as { authorizationServerUrl?: unknown } | undefined;
  if (typeof discovery?.authorizationServerUrl === 'string') stored.discovery = v.discovery as OAuthDiscoveryState;
  return stored;
}
