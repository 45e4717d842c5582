/**
 * Users' pending sign-ins shared by the replicas (`sessions.store: redis`
 * with `server.public_url`): one key per flow, `<prefix>:sign-in:<sha256(state)>`,
 * its value sealed with the per-user token vault's key (AES-256-GCM,
 * runtime/auth/user-token-vault.ts) since it holds a PKCE verifier, set with
 * the flow's timeout as TTL and read with GETDEL, so exactly one callback
 * takes it, on whichever replica. The replica that finished a sign-in says
 * so on `<prefix>:sign-ins-ended`, so the one that started it stops waiting.
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
    await storeCall(this.log, 'pending sign-in write', () => this.commands.set(this.keys.pendingSignIn(digest), sealed, 'PX', Math.max(1, Math.round(ttlMs))));
  }

  async take(digest: string): Promise<PendingSignIn | undefined> {
    const text = await storeCall(this.log, 'pending sign-in take', () => this.commands.getdel(this.keys.pendingSignIn(digest)));
    if (text === null) return undefined;
    try {
      return openJson(text, this.key()) as PendingSignIn;
    } catch {
      // Sealed with another key (a replica without the shared GATEWAY_SECRETS_KEY): unusable, as if unknown.
      this.log.warn(
        { op: 'pending sign-in take' },
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
