/**
 * Turns the runs' results into verdicts (against the expected failures), a
 * scenario x run table per suite, the details of every failure, and a closing
 * `N passed, N failed` line.
 */
import type { ExpectedFailures } from './expected-failures.js';
import type { ScenarioResult } from './suite-cli.js';

export type SuiteKind = keyof ExpectedFailures;

export interface RunResult {
  /** Column title, e.g. `direct`, `gateway-stdio`. */
  name: string;
  kind: SuiteKind;
  /** Runs with the same table title share one table, a column each; default the kind's (`server scenario`, `client scenario`). */
  table?: string;
  scenarios: ScenarioResult[];
  /** Set when the run could not take place at all (fixture or gateway did not start, ...). */
  error?: string;
}

/** pass; FAIL (unexpected); xfail (listed and failing); XPASS (listed but passing: the entry is stale). */
export type Verdict = 'pass' | 'FAIL' | 'xfail' | 'XPASS';

export function verdictOf(result: ScenarioResult, expectedReason: string | undefined): Verdict {
  if (expectedReason === undefined) return result.passed ? 'pass' : 'FAIL';
  return result.passed ? 'XPASS' : 'xfail';
}

export interface Summary {
  passed: number;
  /** Everything that makes the run fail: unexpected failures, stale expected failures, runs that did not run. */
  failed: number;
  expectedFailures: number;
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, col) => Math.max(...rows.map((r) => r[col].length)));
  return rows
    .map((r) =>
      r
        .map((cell, col) => cell.padEnd(widths[col]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function failureDetails(result: ScenarioResult): string[] {
  const lines = result.checks
    .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
    .map((c) => `    ${c.id} (${c.name}) ${c.status}: ${c.errorMessage ?? c.description}`);
  if (result.problem) lines.push(`    ${result.problem}`);
  return lines;
}

export function report(runs: RunResult[], expected: ExpectedFailures, write: (text: string) => void): Summary {
  const summary: Summary = { passed: 0, failed: 0, expectedFailures: 0 };
  const details: string[] = [];
  const titleOf = (run: RunResult) => run.table ?? `${run.kind} scenario`;
  for (const title of [...new Set(runs.map(titleOf))]) {
    const ofTable = runs.filter((r) => titleOf(r) === title);
    const kind = ofTable[0]!.kind;
    const scenarios = [...new Set(ofTable.flatMap((r) => r.scenarios.map((s) => s.scenario)))];
    const rows = [[title, ...ofTable.map((r) => r.name)]];
    for (const scenario of scenarios) {
      const cells = ofTable.map((run) => {
        const result = run.scenarios.find((s) => s.scenario === scenario);
        if (!result) return '-';
        const verdict = verdictOf(result, expected[kind][scenario]);
        if (verdict === 'pass') summary.passed++;
        else if (verdict === 'xfail') {
          summary.expectedFailures++;
          details.push(`xfail ${run.name} / ${scenario}: ${expected[kind][scenario]}`);
        } else {
          summary.failed++;
          const why = verdict === 'XPASS' ? ['    listed in expected-failures.ts but passes now: remove the entry'] : failureDetails(result);
          details.push(`${verdict} ${run.name} / ${scenario}`, ...why);
        }
        return verdict;
      });
      rows.push([scenario, ...cells]);
    }
    write(`\n${table(rows)}\n`);
    for (const run of ofTable.filter((r) => r.error !== undefined)) {
      summary.failed++;
      details.push(`ERROR ${run.name}: the run did not complete: ${run.error}`);
    }
  }
  if (details.length > 0) write(`\n${details.join('\n')}\n`);
  return summary;
}
