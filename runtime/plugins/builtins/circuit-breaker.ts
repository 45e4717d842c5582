/**
 * circuit_breaker, per backend: after `failure_threshold` failures in a row
 * (./backend-failures.ts) the circuit opens and the backend's calls fail at
 * once with `circuit_open`, naming the backend and when it is tried again.
 * After `cooldown_s` the circuit is half open: one trial call goes through
 * (the others still fail fast); its success closes the circuit, its failure
 * opens it for another cooldown. Opening and closing are events.
 */
import { CircuitOpenError, RequestCancelledError } from '../../../schemas/errors.js';
import type { BuiltinSettings } from '../../../schemas/plugins.js';
import type { CircuitState } from '../../../schemas/records.js';
import type { CallResult, Plugin, PluginCall } from '../plugin.js';
import type { BuiltinContext } from './builtin-context.js';
import { isBackendFailure } from './backend-failures.js';

interface Circuit {
  state: CircuitState;
  failures: number;
  /** While open: when the trial call may go. */
  retryAt: number;
  trialInFlight: boolean;
}

/** How soon a call refused during a trial may try again. */
const TRIAL_RETRY_MS = 1000;

export class CircuitBreaker implements Plugin {
  private readonly circuits = new Map<string, Circuit>();
  private readonly cooldownMs: number;

  constructor(
    private readonly settings: BuiltinSettings<'circuit_breaker'>,
    private readonly ctx: BuiltinContext,
  ) {
    this.cooldownMs = settings.cooldown_s * 1000;
  }

  /** What the backend record shows: an open circuit whose cooldown is over is half open (its next call is the trial). */
  stateOf(backend: string): CircuitState {
    const c = this.circuits.get(backend);
    if (c === undefined) return 'closed';
    return c.state === 'open' && Date.now() >= c.retryAt ? 'half_open' : c.state;
  }

  async around(call: PluginCall, next: () => Promise<CallResult>): Promise<CallResult> {
    const c = this.circuitOf(call.backend);
    const trial = this.admit(call.backend, c);
    try {
      const result = await next();
      this.succeeded(call.backend, c, trial);
      return result;
    } catch (err) {
      if (isBackendFailure(err)) this.failed(call.backend, c, trial);
      // A cancelled call says nothing about the backend: the next call is the trial.
      else if (err instanceof RequestCancelledError) c.trialInFlight &&= !trial;
      // The backend answered (about the request): it is alive.
      else this.succeeded(call.backend, c, trial);
      throw err;
    }
  }

  /** Lets the call through (true: as the trial) or fails it fast. */
  private admit(backend: string, c: Circuit): boolean {
    const now = Date.now();
    if (c.state === 'closed') return false;
    if (c.state === 'open' && now < c.retryAt) throw new CircuitOpenError(backend, new Date(c.retryAt), Math.ceil((c.retryAt - now) / 1000));
    if (c.trialInFlight) throw new CircuitOpenError(backend, new Date(now + TRIAL_RETRY_MS), TRIAL_RETRY_MS / 1000);
    c.state = 'half_open';
    c.trialInFlight = true;
    return true;
  }

  private succeeded(backend: string, c: Circuit, trial: boolean): void {
    if (trial) {
      c.trialInFlight = false;
      c.state = 'closed';
      c.failures = 0;
      this.ctx.events({
        stage: 'circuit_closed',
        backend,
        severity: 'info',
        message: `${backend}: the trial call succeeded; its circuit is closed again`,
        details: {},
      });
    } else if (c.state === 'closed') c.failures = 0;
  }

  private failed(backend: string, c: Circuit, trial: boolean): void {
    if (trial) c.trialInFlight = false;
    else if (c.state !== 'closed') return;
    c.failures++;
    if (!trial && c.failures < this.settings.failure_threshold) return;
    c.state = 'open';
    c.retryAt = Date.now() + this.cooldownMs;
    const retryAt = new Date(c.retryAt).toISOString();
    this.ctx.events({
      stage: 'circuit_opened',
      backend,
      severity: 'error',
      message: trial
        ? `${backend}: the trial call failed; its calls are refused until ${retryAt}`
        : `${backend}: ${c.failures} failures in a row; its calls are refused until ${retryAt}`,
      details: { failures: c.failures, retry_at: retryAt, trial },
    });
  }

  private circuitOf(backend: string): Circuit {
    let c = this.circuits.get(backend);
    if (c === undefined) {
      c = { state: 'closed', failures: 0, retryAt: 0, trialInFlight: false };
      this.circuits.set(backend, c);
    }
    return c;
  }
}
