/**
 * What a client session is, as a plain serialisable record: what a replica
 * needs to serve a session whose `initialize` it never saw. The shared
 * session store keeps one per session (each key a field of a Redis hash,
 * its value JSON), so a new field is one more key here and nothing else.
 * Checked when read back: a record another version wrote is refused, not
 * trusted.
 */
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { MCP_LOG_LEVELS } from './mcp-log-levels.js';
import { INCOMING_AUTH_TYPES } from './access-config.js';

const Counts = Type.Object({ tools: Type.Integer(), resources: Type.Integer(), prompts: Type.Integer() });

export const SessionStateSchema = Type.Object({
  id: Type.String({ minLength: 1 }),
  transport_type: Type.Literal('streamable-http'),
  client_ip: Type.String(),
  /** ms epoch. */
  created_at: Type.Number(),
  /** ms epoch of the last request any replica saw (written back in batches). */
  last_activity: Type.Number(),
  /** The replica that last served it. */
  replica: Type.String(),
  /** The client's initialize request params, as sent: replayed to make a session on another replica. */
  initialize: Type.Object({
    protocolVersion: Type.String(),
    capabilities: Type.Record(Type.String(), Type.Unknown()),
    clientInfo: Type.Record(Type.String(), Type.Unknown()),
  }),
  /** The client sent notifications/initialized. */
  initialized: Type.Boolean(),
  log_level: Type.Optional(Type.Union(MCP_LOG_LEVELS.map((l) => Type.Literal(l)))),
  /** Resource URIs the client subscribed to. */
  subscriptions: Type.Array(Type.String()),
  capability_snapshot: Counts,
  /** Who owns it (incoming authentication): a replica taking it up refuses (404) a request from anyone else. Absent: anonymous. */
  owner: Type.Optional(
    Type.Object({
      type: Type.Union(INCOMING_AUTH_TYPES.map((t) => Type.Literal(t))),
      user_id: Type.Optional(Type.String()),
      roles: Type.Array(Type.String()),
    }),
  ),
});
export type SessionState = Static<typeof SessionStateSchema>;

const check = TypeCompiler.Compile(SessionStateSchema);

export function isSessionState(value: unknown): value is SessionState {
  return check.Check(value);
}
