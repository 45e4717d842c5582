/**
 * Runs the official conformance CLI (`@modelcontextprotocol/conformance`, a dev
 * dependency) on Node 22 and reads its verdicts back from the `checks.json`
 * files it writes with `-o`, one folder per scenario.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** One check as the suite records it. */
export interface Check {
  id: string;
  name: string;
  description: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

export interface ScenarioResult {
  scenario: string;
  /** The suite's own rule (as for its baselines): no FAILURE and no WARNING check; for client scenarios also a clean exit. */
  passed: boolean;
  checks: Check[];
  /** Why there is no verdict from checks: the scenario crashed, timed out or wrote nothing. */
  problem?: string;
}

export interface ScenarioLists {
  server: string[];
  client: string[];
}

const SERVER_SUITE_TIMEOUT_MS = 300_000;
/** The suite's own limit for one client scenario (its `--timeout`; ours is a little longer): generous, as a loaded machine is slow to start the processes. */
const CLIENT_SCENARIO_TIMEOUT_MS = 60_000;

function cliPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');
}

function failedChecks(checks: Check[]): Check[] {
  return checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
}

/** Every checks.json below `dir` (scenario names with `/` make nested folders). */
function checkFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('checks.json'))
    .map((f) => join(dir, f));
}

function readChecks(file: string): Check[] {
  return JSON.parse(readFileSync(file, 'utf8')) as Check[];
}

export class ConformanceSuite {
  private readonly cli = cliPath();

  constructor(private readonly node22: string) {}

  /** Server and client scenario names, as `conformance list` prints them. */
  async list(): Promise<ScenarioLists> {
    const { output } = await this.exec(['list'], 30_000);
    const lists: ScenarioLists = { server: [], client: [] };
    let current: string[] | undefined;
    for (const line of output.split('\n')) {
      if (line.startsWith('Server scenarios')) current = lists.server;
      else if (line.startsWith('Client scenarios')) current = lists.client;
      const m = /^\s+- (\S+)/.exec(line);
      if (m && current) current.push(m[1]);
    }
    if (lists.server.length === 0 || lists.client.length === 0) throw new Error(`could not read the scenario list from \`conformance list\`:\n${output}`);
    return lists;
  }

  /** The default (active) server suite against `url`; the full log goes to `<outDir>/suite.log`. */
  async runServerSuite(url: string, outDir: string): Promise<ScenarioResult[]> {
    const resultsDir = join(outDir, 'results');
    const { output } = await this.exec(['server', '--url', url, '-o', resultsDir], SERVER_SUITE_TIMEOUT_MS, join(outDir, 'suite.log'));
    const ran = [...output.matchAll(/^=== Running scenario: (\S+) ===$/gm)].map((m) => m[1]);
    if (ran.length === 0) throw new Error(`the server suite ran no scenario; see ${join(outDir, 'suite.log')}`);
    // Folders are named server-<scenario>-<timestamp>.
    const byScenario = new Map<string, string>();
    for (const file of checkFiles(resultsDir)) {
      const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dirname(file).split(/[\\/]/).pop() ?? '');
      if (m) byScenario.set(m[1], file);
    }
    return ran.map((scenario) => {
      const file = byScenario.get(scenario);
      if (!file) return { scenario, passed: false, checks: [], problem: `the scenario wrote no checks (it crashed); see ${join(outDir, 'suite.log')}` };
      const checks = readChecks(file);
      return { scenario, passed: failedChecks(checks).length === 0 && checks.length > 0, checks };
    });
  }

  /** One client scenario; the suite launches `command <server url>` with its environment plus `env`. */
  async runClientScenario(command: string, scenario: string, outDir: string, env: Record<string, string> = {}): Promise<ScenarioResult> {
    const resultsDir = join(outDir, 'results');
    const log = join(outDir, 'suite.log');
    const { code, output } = await this.exec(
      ['client', '--command', command, '--scenario', scenario, '--timeout', String(CLIENT_SCENARIO_TIMEOUT_MS), '-o', resultsDir],
      CLIENT_SCENARIO_TIMEOUT_MS + 30_000,
      log,
      env,
    );
    const [file] = checkFiles(resultsDir);
    if (!file) return { scenario, passed: false, checks: [], problem: `the scenario wrote no checks; see ${log}` };
    const checks = readChecks(file);
    const clean = code === 0;
    const timedOut = /CLIENT TIMED OUT/.test(output);
    return {
      scenario,
      passed: clean && failedChecks(checks).length === 0,
      checks,
      problem: clean
        ? undefined
        : timedOut
          ? `the client command timed out; see ${log}`
          : `the suite exited with ${code}; see ${log} and ${dirname(file)}/stderr.txt`,
    };
  }

  private exec(args: string[], timeoutMs: number, logFile?: string, env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
    if (logFile) mkdirSync(dirname(logFile), { recursive: true });
    return new Promise((resolve, reject) => {
      const child = spawn(this.node22, [this.cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
      const timer = setTimeout(() => {
        output += `\n[runner] killed after ${timeoutMs} ms\n`;
        child.kill('SIGKILL');
      }, timeoutMs);
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        if (logFile) writeFileSync(logFile, output);
        resolve({ code, output });
      });
    });
  }
}
