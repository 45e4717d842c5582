/**
 * What the client driver does for each client scenario of the suite: the gateway
 * is the MCP client under test (it connects to the scenario's server as its only
 * backend), and these plans play the user of the gateway, making through it the
 * calls the scenario's server waits for.
 *
 * Only non-auth scenarios have plans today. An auth scenario (`auth/...`, issue 16)
 * adds a plan whose `backendAuth` turns the suite's context (e.g. a pre-registered
 * client) into the backend's `auth:` config; see docs/conformance.md.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HttpBackendSpec } from '../../schemas/config.js';

/** `MCP_CONFORMANCE_CONTEXT`: what the suite tells the client for this scenario (credentials, ...). */
export interface ScenarioContext {
  name: string;
  [key: string]: unknown;
}

export type BackendAuth = NonNullable<HttpBackendSpec['auth']>;

export interface ClientScenarioPlan {
  /** Outgoing auth the gateway needs to reach the scenario's server, from the suite's context. */
  backendAuth?(context: ScenarioContext): BackendAuth;
  /** The calls a user makes through the gateway; throws when the gateway answers wrongly. */
  run(client: Client, context: ScenarioContext): Promise<void>;
}

/** Auth scenarios are named `auth/...` by the suite. */
export function isAuthScenario(name: string): boolean {
  return name.startsWith('auth/');
}

async function callExposedTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  const { tools } = await client.listTools();
  if (!tools.some((t) => t.name === name))
    throw new Error(`the gateway does not list the backend's tool ${name}; it lists: ${tools.map((t) => t.name).join(', ') || 'nothing'}`);
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed through the gateway: ${JSON.stringify(result.content)}`);
  return result;
}

export const CLIENT_SCENARIO_PLANS: Record<string, ClientScenarioPlan> = {
  // The checks are on the gateway's own initialize; listing tools shows the session works end to end.
  initialize: {
    async run(client) {
      await client.listTools();
    },
  },

  tools_call: {
    async run(client) {
      const result = await callExposedTool(client, 'add_numbers', { a: 5, b: 3 });
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join(' ');
      if (!/\b8\b/.test(text)) throw new Error(`add_numbers(5, 3) answered ${JSON.stringify(text)}`);
    },
  },

  // The server asks (via the gateway) for values with defaults; the user accepts
  // without filling anything in and the driver's SDK client applies the schema's
  // defaults (capability elicitation.form.applyDefaults), so the defaults must have
  // crossed the gateway intact.
  'elicitation-sep1034-client-defaults': {
    async run(client) {
      client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: {} }));
      await callExposedTool(client, 'test_client_elicitation_defaults');
    },
  },

  // The server closes the tool call's SSE stream after a priming event; the
  // gateway must reconnect (GET, Last-Event-ID) after the `retry` delay to get the result.
  'sse-retry': {
    async run(client) {
      await callExposedTool(client, 'test_reconnection');
    },
  },
};
