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
/** `authorization_url` arrives with outgoing OAuth: the page the user must open. */
export type Reauth = Static<typeof api.ReauthSchema> & { authorization_url?: string };
export type Shutdown = Static<typeof api.ShutdownSchema>;
export type Skills = Static<typeof api.SkillsSchema>;
export type SkillAction = Static<typeof api.SkillActionSchema>;
export type RegistrySearch = Static<typeof api.RegistrySearchSchema>;
export type RegistryServer = Static<typeof api.RegistryServerSchema>;
export type ToolCall = Static<typeof api.ToolCallSchema>;
export type ResourceRead = Static<typeof api.ResourceReadSchema>;

/** POST /registry/install: body and 201 answer (schema pending in schemas/api.ts; shape agreed with its author). */
export interface RegistryInstallRequest {
  name: string;
  registry?: string;
  backend_name?: string;
}
export interface RegistryInstall {
  backend: string;
  entry: RegistryServer;
  reload: Reload;
}
