/** Client sessions that record what the gateway sends them, for tests of backend → client traffic (runtime/routing/client-fanout.ts). */
import type { ClientCapability, ClientDirectory, ClientEndpoint, ClientNotice } from '../../runtime/routing/client-fanout.js';
import type { JsonObject, PeerMessage } from '../../runtime/routing/caller.js';

/** A client session that records what it is sent. */
export class RecordingSession implements ClientEndpoint {
  readonly notices: Array<{ notice: ClientNotice; related?: string | number }> = [];
  readonly requests: PeerMessage[] = [];
  constructor(
    readonly id: string,
    readonly lastActivity: number,
    readonly opts: { initialized?: boolean; logLevel?: string; capabilities?: ClientCapability[] } = {},
  ) {}
  get initialized(): boolean {
    return this.opts.initialized ?? true;
  }
  get logLevel(): string | undefined {
    return this.opts.logLevel;
  }
  can(capability: ClientCapability): boolean {
    return this.opts.capabilities?.includes(capability) ?? false;
  }
  async notify(notice: ClientNotice, related?: string | number): Promise<void> {
    this.notices.push({ notice, ...(related !== undefined ? { related } : {}) });
  }
  async request(request: PeerMessage): Promise<JsonObject> {
    this.requests.push(request);
    return { answeredBy: this.id };
  }
}

export function directory(...sessions: RecordingSession[]): ClientDirectory {
  return { get: (id) => sessions.find((s) => s.id === id), all: () => sessions, listening: () => sessions };
}
