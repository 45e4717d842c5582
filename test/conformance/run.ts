/**
 * `npm run conformance`: the official MCP conformance suite, run
 *   direct         server suite against the conformance fixture itself (sanity)
 *   gateway-stdio  server suite against the gateway fronting the fixture as a stdio backend
 *   gateway-http   server suite against the gateway fronting the fixture as a streamable-http backend
 *   gateway-cluster server suite through a round-robin balancer in front of three replicas sharing sessions in Redis
 *   client         the suite's non-auth client scenarios, the gateway being the client (./client-driver.ts)
 *   client-auth    the suite's auth client scenarios (auth/...): the gateway as the OAuth client of the scenario's server
 * Give run names as arguments to run only those. Prints a table per suite and
 * the failed checks; exits 1 on an unexpected failure or an unexpected pass
 * (see ./expected-failures.ts). Logs and the suite's checks.json files are kept
 * under .tmp/conformance/. See docs/conformance.md.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import PQueue from 'p-queue';
import type { BackendSpec } from '../../schemas/config.js';
import { fixtureMainPath, repoRoot, startHttpFixture } from '../fixtures/spawn.js';
import { isAuthScenario } from './client-scenarios.js';
import { EXPECTED_FAILURES } from './expected-failures.js';
import { startGatewayUnderTest } from './gateway-under-test.js';
import { startClusterUnderTest } from './cluster-under-test.js';
import { ensureNode22 } from './node22.js';
import { report, type RunResult } from './report.js';
import { ConformanceSuite, type ScenarioResult } from './suite-cli.js';

const RUNS = ['direct', 'gateway-stdio', 'gateway-http', 'gateway-cluster', 'client', 'client-auth'] as const;
type RunName = (typeof RUNS)[number];

const fixtureMain = () => fixtureMainPath('conformance-server-main');

function startFixture() {
  return startHttpFixture({ transport: 'streamable-http', main: fixtureMain() });
}

async function serverSuiteBehindGateway(suite: ConformanceSuite, backend: BackendSpec, outDir: string): Promise<ScenarioResult[]> {
  const gateway = await startGatewayUnderTest(backend, join(outDir, 'gateway'));
  try {
    return await suite.runServerSuite(gateway.mcpUrl, outDir);
  } finally {
    await gateway.stop();
  }
}

/** The suite splits a client command on spaces and runs it through a shell: quote each part. */
function shellCommand(parts: string[]): string {
  return parts
    .map((part) => {
      if (part.includes("'")) throw new Error(`cannot quote ${part} for the suite's shell`);
      return `'${part}'`;
    })
    .join(' ');
}

/**
 * Auth scenarios run one per core (at most 4): each is a suite process, a
 * scenario server, a driver and a gateway of its own (own ports, own state
 * folder), and most of their time is process start-up. The other client
 * scenarios run one by one: sse-retry measures the gateway's reconnect delay.
 */
const AUTH_SCENARIOS_AT_ONCE = Math.min(4, availableParallelism());

async function clientScenarios(suite: ConformanceSuite, scenarios: string[], outDir: string, concurrency = 1): Promise<ScenarioResult[]> {
  const driver = join(repoRoot(), 'dist', 'test', 'conformance', 'client-driver.js');
  if (!existsSync(driver)) throw new Error(`${driver} is missing: run \`npm run build\` first`);
  // The gateway and the driver run on this Node, the suite on Node 22.
  const command = shellCommand([process.execPath, driver]);
  const queue = new PQueue({ concurrency });
  return Promise.all(
    scenarios.map((scenario) => {
      const dir = join(outDir, scenario);
      return queue.add(() => suite.runClientScenario(command, scenario, dir, { GATEWAY_CONFORMANCE_DIR: join(dir, 'gateway') }));
    }),
  );
}

async function perform(name: RunName, suite: ConformanceSuite, client: ClientLists, outDir: string): Promise<ScenarioResult[]> {
  switch (name) {
    case 'direct': {
      const fixture = await startFixture();
      try {
        return await suite.runServerSuite(fixture.url, outDir);
      } finally {
        await fixture.stop();
      }
    }
    case 'gateway-stdio':
      return serverSuiteBehindGateway(suite, { type: 'stdio', command: process.execPath, args: [fixtureMain()] }, outDir);
    case 'gateway-http': {
      const fixture = await startFixture();
      try {
        return await serverSuiteBehindGateway(suite, { type: 'streamable-http', url: fixture.url }, outDir);
      } finally {
        await fixture.stop();
      }
    }
    case 'gateway-cluster': {
      // Each replica runs its own fixture process; the suite's requests alternate between them.
      const cluster = await startClusterUnderTest({ type: 'stdio', command: process.execPath, args: [fixtureMain()] }, join(outDir, 'gateway'));
      try {
        return await suite.runServerSuite(cluster.mcpUrl, outDir);
      } finally {
        await cluster.stop();
      }
    }
    case 'client':
      return clientScenarios(suite, client.plain, outDir);
    case 'client-auth':
      return clientScenarios(suite, client.auth, outDir, AUTH_SCENARIOS_AT_ONCE);
  }
}

function selectedRuns(args: string[]): RunName[] {
  const unknown = args.filter((a) => !(RUNS as readonly string[]).includes(a));
  if (unknown.length > 0) throw new Error(`unknown run ${unknown.join(', ')}; runs are: ${RUNS.join(', ')}`);
  return args.length === 0 ? [...RUNS] : RUNS.filter((r) => args.includes(r));
}

interface ClientLists {
  plain: string[];
  auth: string[];
}

/** The list must stay honest: no server entries at all, no client entry for a scenario we do not run. */
function checkExpectedFailures(allClient: string[]): void {
  const server = Object.keys(EXPECTED_FAILURES.server);
  if (server.length > 0)
    throw new Error(`expected-failures.ts lists server scenarios (${server.join(', ')}): the server list must stay empty; fix the gateway instead`);
  const unknown = Object.keys(EXPECTED_FAILURES.client).filter((s) => !allClient.includes(s));
  if (unknown.length > 0) throw new Error(`expected-failures.ts lists client scenarios that are not run: ${unknown.join(', ')}`);
}

async function main(): Promise<number> {
  const started = Date.now();
  const runs = selectedRuns(process.argv.slice(2));
  const root = repoRoot();
  const outRoot = join(root, '.tmp', 'conformance');
  rmSync(outRoot, { recursive: true, force: true });
  mkdirSync(outRoot, { recursive: true });

  const suite = new ConformanceSuite(await ensureNode22(root));
  const lists = await suite.list();
  checkExpectedFailures(lists.client);
  const client: ClientLists = { plain: lists.client.filter((s) => !isAuthScenario(s)), auth: lists.client.filter(isAuthScenario) };

  const results: RunResult[] = [];
  for (const name of runs) {
    const kind = name.startsWith('client') ? 'client' : 'server';
    const table = name === 'client-auth' ? 'auth client scenario' : undefined;
    const outDir = join(outRoot, name);
    const runStarted = Date.now();
    process.stdout.write(`running ${name} ...`);
    try {
      results.push({ name, kind, table, scenarios: await perform(name, suite, client, outDir) });
    } catch (error) {
      results.push({ name, kind, table, scenarios: [], error: error instanceof Error ? error.message : String(error) });
    }
    process.stdout.write(` ${Math.round((Date.now() - runStarted) / 1000)} s\n`);
  }

  const summary = report(results, EXPECTED_FAILURES, (text) => process.stdout.write(text));
  const seconds = Math.round((Date.now() - started) / 1000);
  process.stdout.write(`\nlogs and checks.json files: ${outRoot} (took ${seconds} s)\n`);
  if (summary.expectedFailures > 0) process.stdout.write(`expected failures (listed in test/conformance/expected-failures.ts): ${summary.expectedFailures}\n`);
  process.stdout.write(`conformance: ${summary.passed} passed, ${summary.failed} failed\n`);
  return summary.failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`conformance: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
