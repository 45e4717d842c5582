/**
 * What the per-call work of `local` auth and ten policies costs on its own,
 * in this process: the front door's `IncomingAuth.authenticate` (the bearer
 * header parsed, the token hashed and compared with each configured one)
 * and the router's `AccessControl.check` (a cached verdict), the two steps
 * a call makes that it does not make without auth. Timed over many calls in
 * a loop, so a figure of a few microseconds resolves where the end-to-end
 * comparison (tens of percent of noise) cannot; it leaves out what is not
 * a step of its own (the session's owner compared, two more audit fields)
 * and whatever a loop hides (warm caches), so it is a lower bound, read
 * beside the end-to-end figures.
 */
import { IncomingAuth } from '../runtime/access/incoming-auth.js';
import { AccessControl } from '../runtime/access/access-control.js';
import type { CallerIdentity } from '../runtime/access/identity.js';
import type { GatewayConfig } from '../schemas/config.js';
import { median } from './stats.js';

const CALLS = 200_000;
const REPEATS = 5;

export interface AuthPathCost {
  calls: number;
  repeats: number;
  /** Median over the repeats. */
  us_per_call: number;
}

/** `config` as the gateway runs it (parsed, defaults applied); `call` must be allowed. */
export function authPathCost(config: GatewayConfig, authorization: string, call: { tool: string; backend: string }): AuthPathCost {
  const auth = new IncomingAuth(config.incoming_auth);
  const access = new AccessControl(config);
  let sink = 0;
  const once = () => {
    const identity = auth.authenticate(authorization) as CallerIdentity;
    const caller = { sessionId: 's', transport: 'streamable-http' as const, userId: identity.userId, roles: identity.roles };
    if (access.check(caller, 'tool', call.tool, call.backend).allowed) sink++;
  };
  if (auth.authenticate(authorization) instanceof Promise) throw new Error('authPathCost measures synchronous authentication (local) only');
  for (let i = 0; i < CALLS / 10; i++) once(); // the JIT settles
  const runs: number[] = [];
  for (let r = 0; r < REPEATS; r++) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) once();
    const used = process.cpuUsage(t0);
    runs.push((used.user + used.system) / CALLS);
  }
  if (sink !== CALLS / 10 + CALLS * REPEATS) throw new Error('the measured call was not allowed: the bench config is wrong');
  return { calls: CALLS, repeats: REPEATS, us_per_call: median(runs) };
}
