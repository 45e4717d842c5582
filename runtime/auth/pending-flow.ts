/**
 * At most one interactive authorization at a time for one holder of tokens
 * (a backend with `auth.type: oauth`, or one user of a backend that acts for
 * each user): a second start joins the pending flow and gets the same URL.
 * The flow is released before its end is told, so a start made after it
 * ended begins a new one.
 */
import { AuthorizationFlow, type AuthorizationFlowOptions } from './authorization-flow.js';
import type { OAuthBackendState } from './oauth-backend-state.js';

/** Told once per flow: undefined when tokens were stored, else why not (one sentence). */
export type FlowEnded = (failure: string | undefined) => void;

export class PendingFlow {
  private flow?: AuthorizationFlow;
  private starting?: Promise<AuthorizationFlow>;

  /** The authorization URL of the pending flow, if any. */
  get url(): string | undefined {
    return this.flow?.authorizationUrl;
  }

  /** Starts a flow, or joins the pending one; resolves with its authorization URL. `ended` is called only for a flow this call started. */
  async start(backend: OAuthBackendState, opts: AuthorizationFlowOptions, ended: FlowEnded): Promise<string> {
    if (this.flow) return this.flow.authorizationUrl;
    this.starting ??= AuthorizationFlow.start(backend, opts)
      .then((flow) => {
        this.adopt(flow, ended);
        return flow;
      })
      .finally(() => {
        this.starting = undefined;
      });
    return (await this.starting).authorizationUrl;
  }

  cancel(reason: string): void {
    this.flow?.cancel(reason);
  }

  /** Another replica finished the pending flow (`failure` unset: tokens stored): it ends here too. */
  endedElsewhere(failure?: string): void {
    this.flow?.endedElsewhere(failure);
  }

  private adopt(flow: AuthorizationFlow, ended: FlowEnded): void {
    this.flow = flow;
    const release = () => {
      if (this.flow === flow) this.flow = undefined;
    };
    flow.done.then(
      () => {
        release();
        ended(undefined);
      },
      (err: unknown) => {
        release();
        ended(err instanceof Error ? err.message : String(err));
      },
    );
  }
}
