/**
 * Every gateway-client command, in the order help lists them: one table that
 * the one-shot command line, the REPL (and its completion) all read.
 */
import { CONTAINER_COMMANDS } from './containers.js';
import type { CommandClass } from 'clipanion';
import type { ClientContext } from './client-command.js';
import { CapabilitiesCommand, ClientsListCommand, GroupsListCommand, HealthStatusCommand, SessionsListCommand, StatusCommand } from './monitoring.js';
import { BackendsListCommand, BackendsReconnectCommand, BackendsShowCommand, ReauthCommand, RevokeCommand } from './backends.js';
import { ToolsApproveCommand, ToolsCallCommand, ToolsDiffCommand, ToolsListCommand, ToolsPendingCommand, ToolsSearchCommand } from './tools.js';
import { ResourcesListCommand, ResourcesReadCommand } from './resources.js';
import { PromptsApproveCommand, PromptsDiffCommand, PromptsGetCommand, PromptsListCommand, PromptsPendingCommand } from './prompts.js';
import { EventsFollowCommand, EventsListCommand } from './events.js';
import { ReloadCommand, ShutdownCommand } from './control.js';
import { SkillsDisableCommand, SkillsEnableCommand, SkillsListCommand } from './skills.js';
import { PluginsListCommand } from './plugins.js';
import { RegistryInstallCommand, RegistrySearchCommand } from './registry.js';
import { AuthzCheckCommand } from './authz.js';

export const CLIENT_COMMANDS: Array<CommandClass<ClientContext>> = [
  StatusCommand,
  HealthStatusCommand,
  BackendsListCommand,
  BackendsShowCommand,
  BackendsReconnectCommand,
  ReauthCommand,
  RevokeCommand,
  GroupsListCommand,
  CapabilitiesCommand,
  ToolsListCommand,
  ToolsSearchCommand,
  ToolsCallCommand,
  ToolsPendingCommand,
  ToolsDiffCommand,
  ToolsApproveCommand,
  ResourcesListCommand,
  ResourcesReadCommand,
  PromptsListCommand,
  PromptsGetCommand,
  PromptsPendingCommand,
  PromptsDiffCommand,
  PromptsApproveCommand,
  SessionsListCommand,
  ClientsListCommand,
  EventsListCommand,
  EventsFollowCommand,
  ReloadCommand,
  ShutdownCommand,
  SkillsListCommand,
  SkillsEnableCommand,
  SkillsDisableCommand,
  PluginsListCommand,
  RegistrySearchCommand,
  RegistryInstallCommand,
  AuthzCheckCommand,
  ...CONTAINER_COMMANDS,
];
