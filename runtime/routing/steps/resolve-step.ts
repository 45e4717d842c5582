/**
 * Step 2 of the call pipeline: finds the name's owner in the route table.
 * A name the table lacks is explained when something explains it (held back
 * until an operator approves its definition, or had by a backend not serving
 * now); else it may belong to a backend still in its first connect: it waits
 * for those (bounded) and is looked up again; then it is unknown, or, while
 * some still connect, told to come back (a retryable error, never "unknown"
 * while the answer may still change). A served name costs one lookup.
 */
import { BackendNotReadyError, BackendsStartingError, QuarantinedError } from '../../../schemas/errors.js';
import type { CallStep, PipelineCall } from '../call-pipeline.js';
import { afterFirstConnects, FIRST_CONNECT_RETRY_S, type FirstConnects } from '../first-connects.js';
import type { Route, RouteTable } from '../route-table.js';
import type { JsonObject } from '../caller.js';

export interface ResolveDeps {
  routes(): RouteTable;
  /** A backend's phase (observed state), for errors about names whose backend is not serving. */
  phaseOf(backend: string): string | undefined;
  firstConnects: FirstConnects;
}

export function resolveStep(d: ResolveDeps): CallStep {
  return (call, next) => {
    const lookup = () => call.op.lookup(d.routes());
    const route = lookup();
    if (route) return served(call, route, next);
    return unlisted(call, d, lookup, next);
  };
}

function served(call: PipelineCall, route: Route, next: () => Promise<JsonObject>): Promise<JsonObject> {
  call.ctx.backend = route.backend;
  call.ctx.originalName = route.original;
  call.route = route;
  call.outgoing = call.op.outgoing(route);
  return next();
}

/** A name the table lacks: explained, or waited for, or unknown (or "come back" while backends still connect). */
async function unlisted(call: PipelineCall, d: ResolveDeps, lookup: () => Route | undefined, next: () => Promise<JsonObject>): Promise<JsonObject> {
  const route = unserved(call, d) ? undefined : await afterFirstConnects(d.firstConnects, lookup);
  if (route) return served(call, route, next);
  if (!call.unserved && !unserved(call, d)) {
    const pending = d.firstConnects.pending();
    throw pending > 0 ? new BackendsStartingError(call.op.capability, pending, FIRST_CONNECT_RETRY_S) : call.op.notFound();
  }
  return next();
}

/** Records why a name is not served now, and whose it is, when something says so. */
function unserved(call: PipelineCall, d: ResolveDeps): boolean {
  const { op, ctx } = call;
  const { quarantined, unavailable } = d.routes();
  const kind = op.kind === 'resource' ? undefined : op.kind;
  const held = kind && (kind === 'tool' ? quarantined.tools : quarantined.prompts).get(ctx.capability);
  if (kind && held) {
    ctx.backend = held.backend;
    ctx.originalName = held.original;
    call.unserved = new QuarantinedError(kind, ctx.capability, held.backend, held.reason);
    return true;
  }
  const route = unavailable.get(ctx.capability);
  if (route === undefined) return false;
  ctx.backend = route.backend;
  ctx.originalName = route.original;
  call.route = route;
  call.unserved = new BackendNotReadyError(ctx.capability, route.backend, d.phaseOf(route.backend) ?? 'not connected');
  return true;
}
