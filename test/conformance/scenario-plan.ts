/**
 * The shape of a client scenario's plan and what plans share: the suite's
 * context, the session a plan plays in, and calling a backend tool through
 * the gateway.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { HttpBackendSpec } from '../../schemas/config.js';
import type { GatewayUser } from './gateway-user.js';

/** `MCP_CONFORMANCE_CONTEXT`: what the suite tells the client for this scenario (credentials, ...). */
export interface ScenarioContext {
  name: string;
  [key: string]: unknown;
}

export type BackendAuth = NonNullable<HttpBackendSpec['auth']>;

/** What a plan works with: the gateway's /mcp as an SDK client, and its user on the management API. */
export interface ScenarioSession {
  client: Client;
  user: GatewayUser;
  context: ScenarioContext;
}

export type ClientScenarioPlan = RunnablePlan | UnsupportedPlan;

export interface RunnablePlan {
  /** Outgoing auth the gateway needs to reach the scenario's server, from the suite's context. */
  backendAuth?(context: ScenarioContext): BackendAuth;
  /** The calls (and consents) a user makes through the gateway; throws when the gateway answers wrongly. */
  run(session: ScenarioSession): Promise<void>;
}

/** A scenario the gateway cannot even be configured for: the driver fails at once with the reason. */
export interface UnsupportedPlan {
  unsupported: string;
}

/** Auth scenarios are named `auth/...` by the suite. */
export function isAuthScenario(name: string): boolean {
  return name.startsWith('auth/');
}

export async function callExposedTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  const { tools } = await client.listTools();
  if (!tools.some((t) => t.name === name))
    throw new Error(`the gateway does not list the backend's tool ${name}; it lists: ${tools.map((t) => t.name).join(', ') || 'nothing'}`);
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed through the gateway: ${JSON.stringify(result.content)}`);
  return result;
}
