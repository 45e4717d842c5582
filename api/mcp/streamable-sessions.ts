/**
 * Making the session of a /mcp client: a new one for its initialize, or,
 * with shared sessions, one taken up from its stored record on a replica
 * that never saw its initialize (the SDK Server is told the stored
 * initialize first, ./session-replay.ts). Either way the same wiring: the
 * session's transport, its SDK Server, what ends it and what cancels.
 */
import { ANONYMOUS, type CallerIdentity } from '../../runtime/access/identity.js';
import { randomUUID } from 'node:crypto';
import type { SessionState } from '../../schemas/session-state.js';
import { ClientSession, type InitializeParams } from './client-session.js';
import { NodeStreamableHttpTransport } from './node-streamable-http-transport.js';
import { createSessionServer } from './session-server.js';
import type { McpContext } from './mcp-context.js';
import { replayInitialize } from './session-replay.js';

/** A /mcp session: one whose transport is the streamable HTTP one (an /sse session id is unknown here). */
export interface StreamableSession {
  session: ClientSession;
  transport: NodeStreamableHttpTransport;
}

/** The session an initialize request creates; it joins the table when the transport accepts the initialize. */
export function openSession(ctx: McpContext, clientIp: string, initialize: InitializeParams | undefined, identity: CallerIdentity): StreamableSession {
  const transport = new NodeStreamableHttpTransport({ sessionIdGenerator: () => randomUUID(), replayMs: ctx.replayMs, cluster: ctx.cluster });
  const session = new ClientSession('streamable-http', clientIp, transport, (s) => createSessionServer(ctx, s));
  session.initializeParams = initialize;
  session.identity = identity;
  transport.onsessioninitialized = async (id) => {
    session.id = id;
    await ctx.sessions.add(session);
  };
  wire(ctx, session, transport);
  // connect() only wires the transport; it cannot fail for a fresh one.
  void session.connect();
  return { session, transport };
}

/** A shared session this replica takes up from its record. */
export async function adoptSession(ctx: McpContext, state: SessionState): Promise<ClientSession> {
  const transport = new NodeStreamableHttpTransport({
    sessionIdGenerator: () => state.id,
    sessionId: state.id,
    replayMs: ctx.replayMs,
    cluster: ctx.cluster,
  });
  const session = new ClientSession('streamable-http', state.client_ip, transport, (s) => createSessionServer(ctx, s));
  session.id = state.id;
  session.initializeParams = state.initialize;
  // Its owner as the replica that made it recorded it: claimSession checks every request against it here too.
  session.identity = state.owner ? ownerIdentity(state.owner) : ANONYMOUS;
  await replayInitialize(session.server, state.initialize);
  // What the record says, over what the replay set (it has just been initialized here).
  session.createdAt = state.created_at;
  session.lastActivity = state.last_activity;
  session.logLevel = state.log_level;
  session.capabilitySnapshot = { ...state.capability_snapshot };
  // The client only sends requests once initialized, whether or not the record has caught up with it.
  session.initialized = true;
  wire(ctx, session, transport);
  await session.connect();
  return session;
}

function wire(ctx: McpContext, session: ClientSession, transport: NodeStreamableHttpTransport): void {
  // A POST's stream dropped and nobody resumed it within the replay window: cancel its requests (the backend is told).
  transport.onrequestsabandoned = (ids) => session.abandon(ids, 'client closed the request stream and did not resume it');
  // The client's DELETE: the session ends for every replica (a shared store may refuse now; the client can retry).
  transport.onsessionclosed = (id) => ctx.sessions.end(id);
  transport.onclose = () => {
    if (session.id) void ctx.sessions.forget(session.id);
  };
}

function ownerIdentity(owner: NonNullable<SessionState['owner']>): CallerIdentity {
  return { type: owner.type, ...(owner.user_id !== undefined ? { userId: owner.user_id } : {}), roles: owner.roles };
}
