/**
 * Seals the `requestState` the gateway hands a 2026-07-28 client, and opens
 * it when the client echoes it back (and, for another purpose, the task ids
 * it hands clients: runtime/tasks/task-handles.ts). The state passes through the client, so
 * it is attacker-controlled input (basic/patterns/mrtr): it is encrypted and
 * authenticated (AES-256-GCM), carries its own expiry, and names the key that
 * sealed it, so that after a rotation the previous key still opens what it
 * sealed. Who the state is for (identity, request, round) is checked by the
 * caller of `open`, on the payload.
 *
 * Wire form: `g1.<key id>.<base64url(iv ‖ ciphertext ‖ tag)>`.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'g1';
/** What a sealed value is for, bound into its tag: a value sealed for one purpose never opens as another's. */
export type SealPurpose = 'requestState' | 'taskId';
const aad = (purpose: SealPurpose) => Buffer.from(`mcp-gateway ${purpose} g1`);
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Why a state was refused: said to the log, never to the client (which gets one fixed message). */
export type StateRefusal = 'malformed' | 'unknown_key' | 'tampered' | 'expired';

export class StateRefusedError extends Error {
  constructor(readonly reason: StateRefusal) {
    super(`requestState refused: ${reason}`);
    this.name = 'StateRefusedError';
  }
}

interface SealKey {
  id: string;
  key: Buffer;
}

export class StateSeal {
  private readonly current: SealKey;
  private readonly accepted: ReadonlyMap<string, SealKey>;

  /** `secret` seals and opens; `previous` (a key being rotated out) only opens. */
  constructor(secret: string | Buffer, previous?: string | Buffer) {
    this.current = deriveKey(secret);
    const keys = [this.current, ...(previous === undefined ? [] : [deriveKey(previous)])];
    this.accepted = new Map(keys.map((k) => [k.id, k]));
  }

  /** A seal with a random key: good for one process only. */
  static ephemeral(): StateSeal {
    return new StateSeal(randomBytes(32));
  }

  seal(payload: object, ttlMs: number, now = Date.now(), purpose: SealPurpose = 'requestState'): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(aad(purpose));
    const body = Buffer.from(JSON.stringify({ exp: now + ttlMs, p: payload }));
    const sealed = Buffer.concat([iv, cipher.update(body), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}.${this.current.id}.${sealed.toString('base64url')}`;
  }

  /** The payload, or StateRefusedError. */
  open<T>(state: string, now = Date.now(), purpose: SealPurpose = 'requestState'): T {
    const [version, keyId, data, extra] = state.split('.');
    if (version !== VERSION || !keyId || !data || extra !== undefined) throw new StateRefusedError('malformed');
    const key = this.accepted.get(keyId);
    if (!key) throw new StateRefusedError('unknown_key');
    const raw = Buffer.from(data, 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES + 1) throw new StateRefusedError('malformed');
    let body: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(aad(purpose));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      body = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new StateRefusedError('tampered');
    }
    const { exp, p } = JSON.parse(body.toString('utf8')) as { exp: number; p: T };
    if (!(exp > now)) throw new StateRefusedError('expired');
    return p;
  }
}

/** An operator's key of any length becomes an AES key and a short id that names it (not the key). */
function deriveKey(secret: string | Buffer): SealKey {
  const key = Buffer.from(hkdfSync('sha256', secret, 'mcp-gateway', 'requestState seal', 32));
  const id = createHmac('sha256', key).update('key id').digest('base64url').slice(0, 8);
  return { id, key };
}
