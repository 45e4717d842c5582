/**
 * The `_meta` envelopes the SDK's Server has accepted, so that a request
 * framed by the gateway itself (./direct-calls.ts) is held to the SDK's own
 * verdict on its envelope without paying for it again. What
 * ../well-formed-modern-request.ts does not look into is the client's
 * capabilities and info beyond name and version; those the SDK checks with
 * its schema on every request, which for a client declaring the usual
 * capabilities (elicitation, sampling, roots, tasks) costs about 16 µs. A
 * client sends the same ones on every request, so the first request with a
 * pair goes through the SDK's Server, and the pair is remembered once that
 * Server has let it through to a handler.
 *
 * The key is the JSON text of the pair: a client that sends the same pair
 * in another key order is only remembered twice. Bounded in count and in
 * size: a pair longer than MAX_KEY_CHARS is never remembered (the SDK
 * checks it every time), so a client cannot make this set hold its large
 * bodies; when full, the set starts again (a client sending a new pair
 * every time is checked by the SDK every time, as without this).
 */
import { isDeepStrictEqual } from 'node:util';
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY } from '@modelcontextprotocol/server';

const MAX_KNOWN = 1024;
/** Far more than the capabilities and client info any client declares (a few hundred characters). */
const MAX_KEY_CHARS = 4096;

export class KnownEnvelopes {
  private readonly keys = new Set<string>();
  /** The pair last found or remembered: a busy client sends it again, and is told without its text being made. */
  private last?: { capabilities: unknown; info: unknown };

  constructor(private readonly max = MAX_KNOWN) {}

  /** Whether the SDK accepted an envelope with this one's capabilities and client info. */
  known(envelope: Readonly<Record<string, unknown>>): boolean {
    const capabilities = envelope[CLIENT_CAPABILITIES_META_KEY];
    const info = envelope[CLIENT_INFO_META_KEY];
    // Equal as values, key order aside (the SDK's check ignores it too), without making the pair's text.
    if (this.last && isDeepStrictEqual(capabilities, this.last.capabilities) && isDeepStrictEqual(info, this.last.info)) return true;
    if (!this.keys.has(keyOf(envelope))) return false;
    this.last = { capabilities, info };
    return true;
  }

  /** An envelope the SDK's Server let through to a handler. */
  remember(envelope: Readonly<Record<string, unknown>>): void {
    const key = keyOf(envelope);
    if (key.length > MAX_KEY_CHARS || this.keys.has(key)) return;
    if (this.keys.size >= this.max) {
      this.keys.clear();
      this.last = undefined;
    }
    this.keys.add(key);
    this.last = { capabilities: envelope[CLIENT_CAPABILITIES_META_KEY], info: envelope[CLIENT_INFO_META_KEY] };
  }
}

/** Capabilities and client info, as one text (JSON.stringify(undefined) is undefined: an absent info keys as such). */
function keyOf(envelope: Readonly<Record<string, unknown>>): string {
  return `${JSON.stringify(envelope[CLIENT_CAPABILITIES_META_KEY])}\n${JSON.stringify(envelope[CLIENT_INFO_META_KEY])}`;
}
