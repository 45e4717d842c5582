/**
 * What the client driver does for each client scenario of the suite: the gateway
 * is the MCP client under test (it connects to the scenario's server as its only
 * backend), and these plans play the user of the gateway, making through it the
 * calls the scenario's server waits for.
 *
 * The auth scenarios' plans (`auth/...`) are in ./auth-scenarios.ts.
 */
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AUTH_SCENARIO_PLANS } from './auth-scenarios.js';
import { callExposedTool, type ClientScenarioPlan } from './scenario-plan.js';

export { isAuthScenario, type ScenarioContext } from './scenario-plan.js';

export const CLIENT_SCENARIO_PLANS: Record<string, ClientScenarioPlan> = {
  // The checks are on the gateway's own initialize; listing tools shows the session works end to end.
  initialize: {
    async run({ client }) {
      await client.listTools();
    },
  },

  tools_call: {
    async run({ client }) {
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
    async run({ client }) {
      client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: {} }));
      await callExposedTool(client, 'test_client_elicitation_defaults');
    },
  },

  // The server closes the tool call's SSE stream after a priming event; the
  // gateway must reconnect (GET, Last-Event-ID) after the `retry` delay to get the result.
  'sse-retry': {
    async run({ client }) {
      await callExposedTool(client, 'test_reconnection');
    },
  },

  ...AUTH_SCENARIO_PLANS,
};
