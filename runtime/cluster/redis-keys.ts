/**
 * Every key and channel the gateway uses in Redis, under one prefix
 * (`sessions.redis.key_prefix`), so several gateways can share one Redis.
 */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  /** A session's record: a hash, one field per key of the record (JSON values). Expires when the session does. */
  session(id: string): string {
    return `${this.prefix}:session:${id}`;
  }

  /** Every session of the cluster: a sorted set scored by expiry (ms epoch), for the limit and GET /sessions. */
  get sessions(): string {
    return `${this.prefix}:sessions`;
  }

  /** A stream of a session's SSE events (a Redis stream); also the channel its new events are published on. */
  events(sessionId: string, stream: string): string {
    return `${this.prefix}:events:${sessionId}:${stream}`;
  }

  /** Every backend's definition pins: a hash, one field per backend (its BackendPins as JSON). */
  get pins(): string {
    return `${this.prefix}:pins`;
  }

  /** Where a replica says which backends' pins it saved (JSON `{ from, backends }`). */
  get pinsChanged(): string {
    return `${this.prefix}:pins-changed`;
  }

  /** Where a replica says which lists its route table changed, and to what (JSON `{ from, lists }`), for the others' listen streams. */
  get listsChanged(): string {
    return `${this.prefix}:lists-changed`;
  }

  /** A rate_limiter's window for one key (a counter); `limiter` tells the config's rate_limiter entries apart. Expires with the window. */
  rate(limiter: string, key: string): string {
    return `${this.prefix}:rate:${limiter}:${key}`;
  }

  /** The key that seals `requestState` when the config names none: made by the first replica, read by the others. */
  get requestStateKey(): string {
    return `${this.prefix}:request-state-key`;
  }

  /** Where one replica hears about the calls it holds that wait for their client's input (runtime/cluster/redis-round-peers.ts). */
  rounds(tag: string): string {
    return `${this.prefix}:rounds:${tag}`;
  }

  /** The sealed OAuth tokens each user granted one backend (`on_behalf_of.type: user_oauth`): a hash, one field per user id. */
  userTokens(backend: string): string {
    return `${this.prefix}:user-tokens:${backend}`;
  }

  /** A user's pending sign-in (`server.public_url`), by the SHA-256 of its `state`: sealed, taken once, expires with the flow. */
  pendingSignIn(stateDigest: string): string {
    return `${this.prefix}:sign-in:${stateDigest}`;
  }

  /** The consent page of a user's pending sign-in (`/oauth/start/<id>`), by the SHA-256 of its id: the state digest of its record. */
  signInStart(startDigest: string): string {
    return `${this.prefix}:sign-in-start:${startDigest}`;
  }

  /** Where the replica a browser came back to says that a user's sign-in ended (JSON `{ from, backend, user, failure? }`). */
  get signInsEnded(): string {
    return `${this.prefix}:sign-ins-ended`;
  }

  /** What every replica hears: ended sessions, cancellations, changed session fields. */
  get bus(): string {
    return `${this.prefix}:bus`;
  }

  /** What one replica hears: answers to its requests, followers of its streams. */
  replica(tag: string): string {
    return `${this.prefix}:replica:${tag}`;
  }
}
