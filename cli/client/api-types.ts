/** Answer types of the management API, from the schemas the server serialises with (schemas/api.ts). */
import type { Static } from '@sinclair/typebox';
import type * as api from '../../schemas/api.js';
import type { BackendRecord, EventRecord } from '../../schemas/records.js';

export type { BackendRecord, EventRecord };
export type Health = Static<typeof api.HealthSchema>;
export type Ready = Static<typeof api.ReadySchema>;
export type Status = Static<typeof api.StatusSchema>;
export type Batch = Static<typeof api.BatchSchema>;
export type Backends = Static<typeof api.BackendsSchema>;
export type Groups = Static<typeof api.GroupsSchema>;
export type Capabilities = Static<typeof api.CapabilitiesSchema>;
export type CapabilitiesQuery = Static<typeof api.CapabilitiesQuerySchema>;
export type ToolInfo = Static<typeof api.ToolInfoSchema>;
export type Sessions = Static<typeof api.SessionsSchema>;
export type Events = Static<typeof api.EventsSchema>;
export type EventsQuery = Partial<Static<typeof api.EventsQuerySchema>>;
export type Reload = Static<typeof api.ReloadSchema>;
export type Reconnect = Static<typeof api.ReconnectSchema>;
export type Reauth = Static<typeof api.ReauthSchema>;
export type Shutdown = Static<typeof api.ShutdownSchema>;
export type Skills = Static<typeof api.SkillsSchema>;
export type SkillAction = Static<typeof api.SkillActionSchema>;
export type RegistrySearch = Static<typeof api.RegistrySearchSchema>;
export type RegistryServer = Static<typeof api.RegistryServerSchema>;
export type ToolCall = Static<typeof api.ToolCallSchema>;
export type ResourceRead = Static<typeof api.ResourceReadSchema>;
export type AuthorizationCheckRequest = Static<typeof api.AuthorizationCheckBodySchema>;
export type AuthorizationCheck = Static<typeof api.AuthorizationCheckSchema>;

export type RegistryInstallRequest = Static<typeof api.RegistryInstallBodySchema>;
export type RegistryInstall = Static<typeof api.RegistryInstallSchema>;
