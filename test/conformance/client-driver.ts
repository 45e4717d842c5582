/**
 * The "client command" the conformance suite launches for a client scenario:
 *
 *   node dist/test/conformance/client-driver.js <scenario server url>
 *
 * with MCP_CONFORMANCE_SCENARIO (and MCP_CONFORMANCE_CONTEXT) set by the suite.
 * It starts the gateway with the scenario's server as its only backend, connects
 * a real SDK Client to the gateway's /mcp and plays the scenario's plan
 * (./client-scenarios.ts). Exit 0 when the plan ran, 1 (reason on stderr) when not.
 *
 * GATEWAY_CONFORMANCE_DIR, set by the runner, is where the gateway's config,
 * log and state (its OAuth tokens, `state/tokens`) go; else a temporary folder.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { HttpBackendSpec } from '../../schemas/config.js';
import { CLIENT_SCENARIO_PLANS, type ScenarioContext } from './client-scenarios.js';
import { BACKEND_NAME, startGatewayUnderTest, type GatewayUnderTest } from './gateway-under-test.js';
import { GatewayUser } from './gateway-user.js';

function readContext(scenario: string): ScenarioContext {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  if (!raw) return { name: scenario };
  const parsed: unknown = JSON.parse(raw);
  if (typeof parsed !== 'object' || parsed === null) throw new Error('MCP_CONFORMANCE_CONTEXT is not a JSON object');
  return { name: scenario, ...parsed };
}

async function main(): Promise<void> {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
  const serverUrl = process.argv[2];
  if (!scenario || !serverUrl) throw new Error('usage: client-driver <server url>, with MCP_CONFORMANCE_SCENARIO set (the conformance suite does both)');
  const plan = CLIENT_SCENARIO_PLANS[scenario];
  if (!plan) throw new Error(`no plan for client scenario ${scenario}: add one to test/conformance/client-scenarios.ts`);
  if ('unsupported' in plan) throw new Error(`${scenario} cannot be run through the gateway: ${plan.unsupported}`);
  const context = readContext(scenario);

  const backend: HttpBackendSpec = { type: 'streamable-http', url: serverUrl, ...(plan.backendAuth ? { auth: plan.backendAuth(context) } : {}) };
  const dir = process.env.GATEWAY_CONFORMANCE_DIR ?? mkdtempSync(join(tmpdir(), 'gw-conformance-'));
  let gateway: GatewayUnderTest | undefined;
  const client = new Client(
    { name: 'gateway-conformance-driver', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: { applyDefaults: true } } } },
  );
  try {
    // A state folder of its own: no tokens from an earlier run or another scenario.
    gateway = await startGatewayUnderTest(backend, dir, { GATEWAY_STATE_DIR: join(dir, 'state') });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.mcpUrl)));
    await plan.run({ client, user: new GatewayUser(gateway.process.url, BACKEND_NAME), context });
  } catch (error) {
    // The suite keeps our stderr (stderr.txt): put the gateway's side of the story there.
    await client.close().catch(() => undefined);
    await gateway?.stop();
    const log = join(dir, 'gateway.log');
    if (existsSync(log)) process.stderr.write(`--- ${log}\n${readFileSync(log, 'utf8')}\n`);
    throw error;
  }
  await client.close();
  await gateway.stop();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`client-driver: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
