/**
 * One user's authorization of one backend (`on_behalf_of.type:
 * user_oauth`), as the OAuth providers see it (an AuthorizationStore, read
 * synchronously inside the SDK's `auth()`), kept in memory and written
 * through to the sealed vault. `sync()` reads the vault before a call: once,
 * or before every call when the vault is shared by replicas, so a sign-in or
 * a revocation made through another replica holds at the next call.
 * Every token it holds is registered with the redactor.
 */
import type { Redactor } from '../observability/logging/redactor.js';
import { FORMAT_VERSION, HeldAuthorization, secretsOf, withParts, type AuthorizationStore, type StoredAuthorization } from './token-store.js';
import type { UserTokenVault } from './user-token-vault.js';

export class UserTokenSlot extends HeldAuthorization implements AuthorizationStore {
  protected data: StoredAuthorization;
  private loaded = false;
  /** Writes in the order they were made; never rejects (a failure waits in `writeError` for `flushed`). */
  private writing: Promise<void> = Promise.resolve();
  private writeError?: unknown;

  constructor(
    private readonly vault: UserTokenVault,
    readonly backend: string,
    readonly user: string,
    private readonly serverUrl: string,
    private readonly redactor: Redactor,
  ) {
    super();
    this.data = this.empty();
  }

  /** Reads the vault (after pending writes): at first use, and at every use when replicas share it. */
  async sync(): Promise<void> {
    if (this.loaded && !this.vault.shared) return;
    await this.writing;
    const stored = await this.vault.read(this.backend, this.user);
    this.replace(stored?.server_url === this.serverUrl ? stored : this.empty());
    this.loaded = true;
  }

  update(parts: Partial<Pick<StoredAuthorization, 'tokens' | 'client' | 'discovery'>>): void {
    const next = withParts(this.data, parts);
    this.replace(next);
    this.enqueue(() => this.vault.write(this.backend, this.user, next));
  }

  clear(): void {
    this.replace(this.empty());
    this.enqueue(async () => void (await this.vault.delete(this.backend, this.user)));
  }

  /** Resolves when every write made so far is in the vault; rejects with one that failed since the last look. */
  async flushed(): Promise<void> {
    await this.writing;
    const failure = this.writeError;
    this.writeError = undefined;
    if (failure !== undefined) throw failure;
  }

  private enqueue(op: () => Promise<void>): void {
    this.writing = this.writing.then(op).catch((err: unknown) => {
      this.writeError ??= err;
    });
  }

  private replace(next: StoredAuthorization): void {
    for (const secret of secretsOf(next)) this.redactor.register(secret);
    const kept = secretsOf(next);
    const dropped = secretsOf(this.data).filter((s) => !kept.includes(s));
    this.data = next;
    for (const secret of dropped) this.redactor.unregister(secret);
  }

  private empty(): StoredAuthorization {
    return { version: FORMAT_VERSION, server_url: this.serverUrl };
  }
}
