/**
 * The shapes the management API answers with: the gateway's own TypeBox
 * schemas (schemas/), as types only, so the page and the server cannot
 * disagree about a field. Nothing of schemas/ is bundled.
 */
import type { Static } from '@sinclair/typebox';
import type * as Api from '../../../schemas/api.js';
import type { AuditRecord as AuditRecordType } from '../../../schemas/audit-record.js';
import type { BackendRecord as BackendRecordType, EventRecord as EventRecordType } from '../../../schemas/records.js';
import type { ManagementRole } from '../../../schemas/management-roles.js';

export type { ManagementRole };
export type BackendRecord = BackendRecordType & {
  /** Coming: the revision of the backend in use (shown when the gateway reports it). */
  revision?: string | null;
};
export type EventRecord = EventRecordType;
export type AuditRecord = AuditRecordType;
export type Session = Static<typeof Api.SessionSchema>;
export type Status = Static<typeof Api.StatusSchema>;
export type Health = Static<typeof Api.HealthSchema>;
export type Capabilities = Static<typeof Api.CapabilitiesSchema>;
export type ToolInfo = Capabilities['tools'][number];
export type PromptInfo = Capabilities['prompts'][number];
export type ResourceInfo = Capabilities['resources'][number];
export type SessionRecord = Static<typeof Api.SessionRecordSchema>;
export type Sessions = Static<typeof Api.SessionsSchema>;
export type Batch = Static<typeof Api.BatchSchema>;
export type PendingTool = Static<typeof Api.PendingToolSchema>;
export type PendingPrompt = Static<typeof Api.PendingPromptSchema>;
export type Plugins = Static<typeof Api.PluginsSchema>;
export type ToolCallResult = Static<typeof Api.ToolCallSchema>;
export type AuthorizationCheck = Static<typeof Api.AuthorizationCheckSchema>;
export type RunningConfig = Static<typeof Api.RunningConfigSchema>;
export type ConfigValidation = Static<typeof Api.ConfigValidateSchema>;
export type ReloadDryRun = Static<typeof Api.ReloadDryRunSchema>;
export type ReloadResult = Static<typeof Api.ReloadSchema>;
export type Audit = Static<typeof Api.AuditSchema>;
export type Stderr = Static<typeof Api.StderrSchema>;
export type ErrorBody = Static<typeof Api.ErrorBodySchema>;

/** GET /clients: recent clients without a session (protocol 2026-07-28). */
export type RecentClient = Static<typeof Api.ClientRecordSchema>;
