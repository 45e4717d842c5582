/**
 * The scenarios' clients per protocol revision (issue 32), and the table that
 * answers its bench question: does a 2026-07-28 `tools/call` cost the gateway
 * more CPU than a 2025-11-25 one?
 *
 * Three callers of the gateway's `/mcp`: the 1.x SDK client (2025-11-25, a
 * session; the scenarios' rows since issue 17), the v2 client pinned to
 * 2026-07-28 (stateless), and the v2 client in `legacy` mode (2025-11-25, a
 * session): the last one differs from the pinned one only by the revision, so
 * the two tell what the revision costs apart from what the client line does.
 */
import { f, table } from './format.js';
import type { V2Negotiation } from './v2-load-client.js';

export type Revision = '2025-11-25' | '2026-07-28';

export interface Caller {
  /** Which SDK line's Client makes the calls. */
  line: '1.x' | 'v2';
  revision: Revision;
  /** How the v2 client negotiates (none for 1.x). */
  v2?: V2Negotiation;
  /** What scenario names carry, e.g. `[2026-07-28]` (nothing for the 1.x client, whose rows keep their names). */
  tag: string;
}

export const SDK1: Caller = { line: '1.x', revision: '2025-11-25', tag: '' };
export const V2_MODERN: Caller = { line: 'v2', revision: '2026-07-28', v2: 'pin-2026-07-28', tag: '[2026-07-28]' };
export const V2_LEGACY: Caller = { line: 'v2', revision: '2025-11-25', v2: 'legacy', tag: '[2025-11-25, v2 client]' };
/** The direct rows' v2 client: the fixture backend is a 1.x server, so `auto` falls back to a 2025-11-25 session. */
export const V2_DIRECT: Caller = { line: 'v2', revision: '2025-11-25', v2: 'auto', tag: '[v2 client, auto: 2025-11-25]' };

/** The gateway's callers in the order their rows are printed. */
export const GATEWAY_CALLERS: readonly Caller[] = [SDK1, V2_LEGACY, V2_MODERN];

/** Whether a gateway answers `server/discover` with 2026-07-28 (a build before issue 32 does not). */
export async function servesModern(mcpUrl: string): Promise<boolean> {
  const modern = '2026-07-28';
  const meta = { 'io.modelcontextprotocol/protocolVersion': modern, 'io.modelcontextprotocol/clientCapabilities': {} };
  try {
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': modern,
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }),
    });
    if (!res.ok) return false;
    const text = await res.text();
    // JSON, or the answer as the last event of an SSE stream.
    const json = text.trimStart().startsWith('{')
      ? text
      : (text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .at(-1)
          ?.slice(5) ?? '{}');
    const body = JSON.parse(json) as { result?: { supportedVersions?: string[] } };
    return body.result?.supportedVersions?.includes(modern) ?? false;
  } catch {
    return false;
  }
}

interface CostRow {
  scenario: string;
  kind: string;
  build?: string;
  clients: number;
  caller: Caller;
  server_cpu_us_per_call: number | null;
  calls_per_s: number;
  loadgen_cores: number;
  loadavg: number;
}

export interface RevisionComparison {
  /** The 2026-07-28 row, its 2025-11-25 counterparts on the same gateway (1.x client, v2 client in legacy mode). */
  scenario: string;
  clients: number;
  modern_cpu_us: number | null;
  sdk1_cpu_us: number | null;
  v2_legacy_cpu_us: number | null;
  /** Gateway CPU per call of 2026-07-28 over 2025-11-25 (≤ 1: the requirement of issue 32 met). */
  modern_over_sdk1: number | null;
  modern_over_v2_legacy: number | null;
  modern_calls_per_s: number;
  sdk1_calls_per_s: number | null;
  /** The load generator's cores during the 2026-07-28 and the 1.x rows: a client costing more leaves the gateway less CPU. */
  modern_loadgen_cores: number;
  sdk1_loadgen_cores: number | null;
  loadavg: number;
}

const ratio = (a?: number | null, b?: number | null) => (a == null || b == null || b <= 0 ? null : a / b);

/** Each 2026-07-28 gateway row of this build against the 2025-11-25 rows of the same gateway and client count. */
export function compareRevisions(rows: readonly CostRow[]): RevisionComparison[] {
  const out: RevisionComparison[] = [];
  for (const m of rows) {
    if (m.kind !== 'gateway' || m.caller.revision !== '2026-07-28' || m.build === 'before') continue;
    const twin = (c: Caller) =>
      rows.find((r) => r.kind === 'gateway' && r.build === m.build && r.clients === m.clients && r.scenario === renamed(m.scenario, c));
    const sdk1 = twin(SDK1);
    const legacy = twin(V2_LEGACY);
    out.push({
      scenario: m.scenario,
      clients: m.clients,
      modern_cpu_us: m.server_cpu_us_per_call,
      sdk1_cpu_us: sdk1?.server_cpu_us_per_call ?? null,
      v2_legacy_cpu_us: legacy?.server_cpu_us_per_call ?? null,
      modern_over_sdk1: ratio(m.server_cpu_us_per_call, sdk1?.server_cpu_us_per_call),
      modern_over_v2_legacy: ratio(m.server_cpu_us_per_call, legacy?.server_cpu_us_per_call),
      modern_calls_per_s: m.calls_per_s,
      sdk1_calls_per_s: sdk1?.calls_per_s ?? null,
      modern_loadgen_cores: m.loadgen_cores,
      sdk1_loadgen_cores: sdk1?.loadgen_cores ?? null,
      loadavg: m.loadavg,
    });
  }
  return out;
}

/** The same scenario name for another caller: `gateway /mcp [2026-07-28] → …` ↔ `gateway /mcp → …`. */
export function renamed(scenario: string, to: Caller): string {
  const bare = scenario.replace(/ \[[^\]]*\]/, '');
  return to.tag ? bare.replace(' → ', ` ${to.tag} → `) : bare;
}

export function revisionTable(rows: readonly RevisionComparison[]): string {
  return table(
    [
      'scenario',
      'clients',
      '2026-07-28 µs/call',
      '2025-11-25 1.x client',
      '2025-11-25 v2 client',
      '÷ 1.x',
      '÷ v2 legacy',
      'calls/s 2026 | 1.x',
      'loadgen cores 2026 | 1.x',
      'load avg',
    ],
    rows.map((r) => [
      r.scenario,
      String(r.clients),
      f(r.modern_cpu_us),
      f(r.sdk1_cpu_us),
      f(r.v2_legacy_cpu_us),
      f(r.modern_over_sdk1, 2),
      f(r.modern_over_v2_legacy, 2),
      `${f(r.modern_calls_per_s)} | ${f(r.sdk1_calls_per_s)}`,
      `${f(r.modern_loadgen_cores, 2)} | ${f(r.sdk1_loadgen_cores, 2)}`,
      f(r.loadavg, 1),
    ]),
  );
}
