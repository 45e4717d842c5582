/**
 * What the per-call work of client authentication and the policies costs on
 * its own, in this process: the front door's `IncomingAuth.authenticate`
 * (the bearer header parsed; a local token hashed and compared with each
 * configured one, or a JWT looked up among the verified ones or verified)
 * and the router's `AccessControl.check` (a cached verdict): the two steps a
 * call makes that it does not make without auth. Timed (CPU of the whole
 * process, so the thread pool's share of a signature check counts) over
 * many calls in a loop, so a figure of a few microseconds resolves where the
 * end-to-end comparison cannot. It leaves out what is not a step of its own
 * (the session's owner compared, two more audit fields, one more header on
 * the wire) and what a loop hides (warm caches): a lower bound.
 */
import { IncomingAuth } from '../runtime/access/incoming-auth.js';
import { AccessControl } from '../runtime/access/access-control.js';
import type { GatewayConfig } from '../schemas/config.js';
import type { CallFacts } from '../schemas/access-config.js';
import { median } from './stats.js';

export interface PathLoad {
  /** Untimed calls first (the JIT settles). */
  warmup: number;
  calls: number;
  repeats: number;
  /** The `Authorization` header of the i-th call (warm-up included). */
  header: (i: number) => string;
}

export interface AuthPathCost {
  calls: number;
  repeats: number;
  /** Median over the repeats. */
  us_per_call: number;
}

/** `config` as the gateway runs it (parsed, defaults applied); every call must be allowed. `facts`: what a `when` reads of the call. */
export async function authPathCost(config: GatewayConfig, call: { tool: string; backend: string; facts?: CallFacts }, load: PathLoad): Promise<AuthPathCost> {
  const auth = new IncomingAuth(config.incoming_auth);
  const access = new AccessControl(config);
  let i = 0;
  let allowed = 0;
  const calls = async (n: number) => {
    for (let k = 0; k < n; k++) {
      // As the front door does: a promise only when a JWT must be looked at.
      const outcome = auth.authenticate(load.header(i++));
      const identity = outcome instanceof Promise ? await outcome : outcome;
      const caller = { sessionId: 's', transport: 'streamable-http' as const, userId: identity.userId, roles: identity.roles };
      // The facts as the router passes them: a fresh arguments object per call, as a client's request gives one.
      const facts = call.facts && { ...call.facts, arguments: { ...call.facts.arguments } };
      if (access.check(caller, 'tool', call.tool, call.backend, facts).allowed) allowed++;
    }
  };
  const runs = await timed(calls, load);
  if (allowed !== i) throw new Error(`${i - allowed} of ${i} measured calls were not allowed: the bench config is wrong`);
  return { calls: load.calls, repeats: load.repeats, us_per_call: median(runs) };
}

/** CPU µs per call of `calls(n)`, once per repeat after an untimed warm-up. */
export async function timed(calls: (n: number) => Promise<void>, load: Pick<PathLoad, 'warmup' | 'calls' | 'repeats'>): Promise<number[]> {
  await calls(load.warmup);
  const runs: number[] = [];
  for (let r = 0; r < load.repeats; r++) {
    const t0 = process.cpuUsage();
    await calls(load.calls);
    const used = process.cpuUsage(t0);
    runs.push((used.user + used.system) / load.calls);
  }
  return runs;
}
