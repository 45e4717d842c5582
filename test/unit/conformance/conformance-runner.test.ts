/**
 * The conformance runner's own logic (the suite itself runs in `npm run
 * conformance`): finding the gateway's URL in what it prints, and judging
 * results against the expected-failures list.
 */
import { describe, expect, it } from 'vitest';
import { report, verdictOf, type RunResult } from '../../conformance/report.js';
import type { ScenarioResult } from '../../conformance/suite-cli.js';
import { listeningUrl } from '../../helpers/gateway-cli.js';

const passing = (scenario: string): ScenarioResult => ({
  scenario,
  passed: true,
  checks: [{ id: scenario, name: scenario, description: 'ok', status: 'SUCCESS' }],
});
const failing = (scenario: string): ScenarioResult => ({
  scenario,
  passed: false,
  checks: [{ id: `${scenario}-check`, name: 'SomeCheck', description: 'd', status: 'FAILURE', errorMessage: 'got 200' }],
});

describe('listeningUrl', () => {
  it('reads the text banner', () => {
    const out = '{"level":30,"msg":"Server listening at http://127.0.0.1:1"}\nMCP gateway 0.1.0 is listening\n  Streamable HTTP  http://127.0.0.1:4242/mcp\n';
    expect(listeningUrl(out)).toBe('http://127.0.0.1:4242');
  });

  it('reads a JSON banner with mcp_url, or url on a listening line', () => {
    expect(listeningUrl('{"msg":"MCP gateway is listening","mcp_url":"http://127.0.0.1:5000/mcp"}\n')).toBe('http://127.0.0.1:5000');
    expect(listeningUrl('{"msg":"MCP gateway is listening","url":"http://[::1]:5001"}\n')).toBe('http://[::1]:5001');
  });

  it("ignores a backend's url in other log lines, and a banner not complete yet", () => {
    expect(listeningUrl('{"msg":"connecting","url":"http://127.0.0.1:7000/mcp"}\n')).toBeUndefined();
    expect(listeningUrl('  Streamable HTTP  http://127.0.0.1:42')).toBeUndefined();
  });
});

describe('verdicts against the expected failures', () => {
  it('passes, fails, and flags both listed outcomes', () => {
    expect(verdictOf(passing('a'), undefined)).toBe('pass');
    expect(verdictOf(failing('a'), undefined)).toBe('FAIL');
    expect(verdictOf(failing('a'), 'known bug')).toBe('xfail');
    expect(verdictOf(passing('a'), 'known bug')).toBe('XPASS');
  });

  it('counts unexpected failures, stale entries and broken runs as failed, and prints the failed check', () => {
    const runs: RunResult[] = [
      { name: 'direct', kind: 'server', scenarios: [passing('ping'), passing('dns')] },
      { name: 'gateway', kind: 'server', scenarios: [passing('ping'), failing('dns')] },
      { name: 'client', kind: 'client', scenarios: [failing('known'), passing('stale'), passing('fine')] },
      { name: 'other', kind: 'client', scenarios: [], error: 'gateway did not start' },
    ];
    let printed = '';
    const summary = report(runs, { server: {}, client: { known: 'a reason', stale: 'fixed since' } }, (t) => (printed += t));
    expect(summary).toEqual({ passed: 4, failed: 3, expectedFailures: 1 });
    expect(printed).toMatch(/^dns\s+pass\s+FAIL$/m);
    expect(printed).toContain('dns-check (SomeCheck) FAILURE: got 200');
    expect(printed).toContain('XPASS client / stale');
    expect(printed).toContain('xfail client / known: a reason');
    expect(printed).toContain('ERROR other: the run did not complete: gateway did not start');
  });
});
