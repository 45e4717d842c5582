/**
 * Users' pending sign-ins shared by the replicas (`sessions.store: redis`
 * with `server.public_url`): one key per flow, `<prefix>:sign-in:<sha256(state)>`,
 * its value sealed with the per-user token vault's key (AES-256-GCM,
 * runtime/auth/user-token-vault.ts) since it holds a PKCE verifier, set with
 * the flow's timeout as TTL and read with GETDEL, so exactly one callback
 * takes it, on whichever replica (a callback refused for lacking the
 * consent page's cookie only reads it). Beside it,
 * `<prefix>:sign-in-start:<sha256(start id)>` holds that state digest (not
 * a secret: it is a key name), so the consent page is served by any replica
 * too. The replica that finished a sign-in says so on
 * `<prefix>:sign-ins-ended`, so the one that started it stops waiting.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../observability/logging/logger.js';
import type { PendingSignIn, PendingSignInStore, SignInEnded } from '../auth/pending-sign-in-store.js';
import { openJson, sealJson } from '../secrets/secrets-file-crypto.js';
import type { ClusterBus } from './cluster-bus.js';
import type { RedisKeys } from './redis-keys.js';
import { storeCall } from './store-call.js';

interface EndedMessage extends SignInEnded {
  from: string;
}

export class RedisPendingSignIns implements PendingSignInStore {
  constructor(
    private readonly commands: Redis,
    private readonly bus: Pick<ClusterBus, 'hold' | 'publish'>,
    private readonly keys: RedisKeys,
    /** This replica's tag: it does not hear itself. */
    private readonly tag: string,
    private readonly key: () => Buffer,
    private readonly log: Logger,
  ) {}

  async put(digest: string, record: PendingSignIn, ttlMs: number): Promise<void> {
    const sealed = JSON.stringify(sealJson(record, this.key()));
    const ttl = Math.max(1, Math.round(ttlMs));
    await storeCall(this.log, 'pending sign-in write', () =>
      this.commands.multi().set(this.keys.pendingSignIn(digest), sealed, 'PX', ttl).set(this.keys.signInStart(record.start_digest), digest, 'PX', ttl).exec(),
    );
  }

  async find(digest: string): Promise<PendingSignIn | undefined> {
    return this.open(await storeCall(this.log, 'pending sign-in read', () => this.commands.get(this.keys.pendingSignIn(digest))));
  }

  async findByStart(startDigest: string): Promise<{ digest: string; record: PendingSignIn } | undefined> {
    const digest = await storeCall(this.log, 'pending sign-in start read', () => this.commands.get(this.keys.signInStart(startDigest)));
    const record = digest === null ? undefined : await this.find(digest);
    return digest !== null && record ? { digest, record } : undefined;
  }

  async take(digest: string): Promise<PendingSignIn | undefined> {
    const record = this.open(await storeCall(this.log, 'pending sign-in take', () => this.commands.getdel(this.keys.pendingSignIn(digest))));
    if (record) await storeCall(this.log, 'pending sign-in start delete', () => this.commands.del(this.keys.signInStart(record.start_digest)));
    return record;
  }

  private open(text: string | null): PendingSignIn | undefined {
    if (text === null) return undefined;
    try {
      return openJson(text, this.key()) as PendingSignIn;
    } catch {
      // Sealed with another key (a replica without the shared GATEWAY_SECRETS_KEY): unusable, as if unknown.
      this.log.warn(
        { op: 'pending sign-in read' },
        'a pending sign-in does not open with the key of this replica: set the same GATEWAY_SECRETS_KEY on every replica',
      );
      return undefined;
    }
  }

  announce(ended: SignInEnded): void {
    this.bus.publish(this.keys.signInsEnded, JSON.stringify({ ...ended, from: this.tag } satisfies EndedMessage));
  }

  onEnded(listener: (ended: SignInEnded) => void): void {
    this.bus.hold(this.keys.signInsEnded, (text) => {
      const m = decode(text);
      if (m && m.from !== this.tag) listener({ backend: m.backend, user: m.user, ...(m.failure !== undefined ? { failure: m.failure } : {}) });
    });
  }
}

function decode(text: string): EndedMessage | undefined {
  try {
    const m = JSON.parse(text) as Partial<EndedMessage>;
    return typeof m.from === 'string' && typeof m.backend === 'string' && typeof m.user === 'string' ? (m as EndedMessage) : undefined;
  } catch {
    return undefined;
  }
}
