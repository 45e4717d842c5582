/**
 * What several rounds of the scenarios make of their phases
 * (BENCH_SCENARIO_ROUNDS): one row per scenario, build and client count (the
 * median of its phases), and with a baseline build, after ÷ before per
 * scenario, paired round by round.
 *
 * Why paired: phases of the two builds of one scenario run next to each other
 * in every round, so a ratio within a round cancels most of what the machine
 * did in that minute; the median of those ratios and its bootstrap interval
 * resolve a few percent where two medians taken apart do not.
 */
import { f, table } from './format.js';
import type { Row } from './harness.js';
import { median, medianInterval } from './stats.js';

interface PhaseRow extends Row {
  scenario: string;
  kind: string;
  build?: 'before' | 'after';
}

export interface BuildComparison {
  scenario: string;
  clients: number;
  rounds: number;
  /** Median of after ÷ before gateway CPU per call over the rounds, and its 95 % interval. */
  cpu_ratio: number;
  cpu_interval: [number, number];
  /** Median of after ÷ before calls/s over the rounds. */
  calls_ratio: number;
  before_cpu_us: number;
  after_cpu_us: number;
}

const keyOf = (r: PhaseRow) => `${r.scenario}|${r.build ?? ''}|${r.clients}`;

/** Numeric fields taken as the median of the phases; counts are summed; the rest comes from the first phase. */
const SUMMED = new Set<keyof Row>(['calls', 'errors']);

export function medianRows<T extends PhaseRow>(phases: readonly T[]): T[] {
  const groups = new Map<string, T[]>();
  for (const p of phases) {
    const list = groups.get(keyOf(p));
    if (list) list.push(p);
    else groups.set(keyOf(p), [p]);
  }
  return [...groups.values()].map((group) => {
    const first = group[0]!;
    const fields = (p: T) => p as unknown as Record<string, unknown>;
    const out: Record<string, unknown> = { ...fields(first), first_error: group.find((p) => p.first_error)?.first_error };
    for (const [field, value] of Object.entries(fields(first))) {
      if (typeof value !== 'number' && value !== null) continue;
      const values = group.map((p) => fields(p)[field]).filter((v): v is number => typeof v === 'number');
      if (values.length === 0) continue;
      out[field] = SUMMED.has(field as keyof Row) ? values.reduce((a, b) => a + b, 0) : median(values);
    }
    return out as unknown as T;
  });
}

export function compareBuilds(phases: readonly PhaseRow[]): BuildComparison[] {
  const out: BuildComparison[] = [];
  const seen = new Set<string>();
  for (const p of phases) {
    if (p.kind !== 'gateway' || p.build !== 'after') continue;
    const key = `${p.scenario}|${p.clients}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const of = (build: 'before' | 'after') =>
      phases.filter((x) => x.kind === 'gateway' && x.build === build && x.scenario === p.scenario && x.clients === p.clients);
    const after = of('after');
    const before = of('before');
    const n = Math.min(after.length, before.length);
    if (n === 0) continue;
    const cpu: number[] = [];
    const calls: number[] = [];
    for (let i = 0; i < n; i++) {
      const a = after[i]!;
      const b = before[i]!;
      if (a.server_cpu_us_per_call && b.server_cpu_us_per_call) cpu.push(a.server_cpu_us_per_call / b.server_cpu_us_per_call);
      if (b.calls_per_s > 0) calls.push(a.calls_per_s / b.calls_per_s);
    }
    out.push({
      scenario: p.scenario,
      clients: p.clients,
      rounds: n,
      cpu_ratio: median(cpu),
      cpu_interval: medianInterval(cpu),
      calls_ratio: median(calls),
      before_cpu_us: median(before.map((x) => x.server_cpu_us_per_call ?? NaN).filter(Number.isFinite)),
      after_cpu_us: median(after.map((x) => x.server_cpu_us_per_call ?? NaN).filter(Number.isFinite)),
    });
  }
  return out;
}

export function buildTable(rows: readonly BuildComparison[]): string {
  return table(
    ['scenario', 'clients', 'rounds', 'CPU µs/call before | after', 'after ÷ before CPU (95 %)', 'after ÷ before calls/s'],
    rows.map((r) => [
      r.scenario,
      String(r.clients),
      String(r.rounds),
      `${f(r.before_cpu_us)} | ${f(r.after_cpu_us)}`,
      `${f(r.cpu_ratio, 2)} (${f(r.cpu_interval[0], 2)}–${f(r.cpu_interval[1], 2)})`,
      f(r.calls_ratio, 2),
    ]),
  );
}
