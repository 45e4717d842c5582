/** What the management API needs from the rest of the gateway. */
import type { GatewayController } from '../../controller/gateway-controller.js';
import type { EventBus } from '../../controller/event-bus.js';
import type { ServingBackends } from '../../runtime/backends/serving-backends.js';
import type { Router } from '../../runtime/routing/router.js';
import type { ToolOptimizer } from '../../runtime/optimizer/tool-optimizer.js';
import type { SessionTable } from '../mcp/session-table.js';
import type { Redactor } from '../../runtime/observability/logging/redactor.js';
import type { SkillManager } from '../../runtime/skills/skill-manager.js';
import type { RegistryClient } from '../../runtime/registry/registry-client.js';
import type { BackendAuthManager } from '../../runtime/auth/backend-auth-manager.js';
import type { UserSignIns } from '../../runtime/auth/user-sign-ins.js';
import type { DefinitionPins } from '../../runtime/pinning/definition-pins.js';
import type { PluginSet } from '../../runtime/plugins/plugin-set.js';
import type { AccessControl } from '../../runtime/access/access-control.js';
import type { RecentClients } from '../mcp/stateless/recent-clients.js';
import type { IncomingAuth } from '../../runtime/access/incoming-auth.js';
import type { AuditTrail } from '../../runtime/observability/audit/audit-query.js';
import type { ConsoleSessions } from './console-sessions.js';

export interface ListenAddress {
  host: string;
  port: number;
  /** `http://host:port`, without a trailing slash. */
  url: string;
}

export interface ManagementContext {
  controller: GatewayController;
  router: Router;
  serving: ServingBackends;
  /** The tool search (GET /tools/search). */
  optimizer: ToolOptimizer;
  /** Pinned definitions: what waits for approval, and approving it. */
  pins: DefinitionPins;
  sessions: SessionTable;
  /** Clients seen without a session (2026-07-28): GET /clients. */
  clients: RecentClients;
  /** This replica's id (`$GATEWAY_REPLICA_ID`, else `<hostname>-<pid>`). */
  replicaId: string;
  /** True once this replica drains (a graceful shutdown with shared sessions): it is not ready. */
  stopping(): boolean;
  /** Every management response and event stream passes through the same redactor as the logs. */
  redactor: Redactor;
  events: EventBus;
  skills: SkillManager;
  registry: RegistryClient;
  /** Outgoing OAuth: POST /reauth/{name} starts a flow here. */
  auth: BackendAuthManager;
  /** Per-user consent: POST /reauth/{name}?user= starts a user's sign-in, DELETE /backends/{name}/users/{id}/token forgets it. */
  signIns: UserSignIns;
  /** The plugin chain (GET /plugins). */
  plugins: PluginSet;
  /** The authorization policies: POST /authorization/check asks them. */
  access: AccessControl;
  /** `incoming_auth`: with `server.management.roles`, its identities may use the API too (principal.ts). */
  incomingAuth: IncomingAuth;
  /** Console sign-ins (cookie sessions). */
  consoleSessions: ConsoleSessions;
  /** The audit trail's file, read by GET /audit. */
  audit: AuditTrail;
  /** Where the gateway listens (known once it listens). */
  listenAddress(): ListenAddress;
  /**
   * Starts the graceful shutdown; called once the `POST /shutdown` response
   * has been sent. Without a timeout, server.shutdown_timeout_s applies.
   */
  requestShutdown(timeoutSeconds?: number): void;
}
