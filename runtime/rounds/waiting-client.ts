/**
 * The client's side of one request of a call (the HTTP exchange it waits
 * on, api/mcp/stateless/exchange.ts): how the rounds learn that the client
 * stopped waiting for the answer, which cancels what it was waiting on.
 */
/** Why a call is cancelled when its client stops waiting (the exchange's signal says the same). */
export const CLIENT_GONE = 'client closed the response stream';

export interface WaitingClient {
  /** Aborted when the client stops waiting (made on first use). */
  readonly signal: AbortSignal;
  /**
   * Calls `abandoned` once if the client stops waiting; returns the undo.
   * The way for the one waiter every call has: no event listener
   * bookkeeping, nothing made when the client waits to the end.
   */
  onAbandoned(abandoned: () => void): () => void;
}

/** A client known only by a signal (a repeat another replica relays here). */
export function signalledClient(signal: AbortSignal): WaitingClient {
  return {
    signal,
    onAbandoned(abandoned) {
      if (signal.aborted) {
        abandoned();
        return () => undefined;
      }
      signal.addEventListener('abort', abandoned, { once: true });
      return () => signal.removeEventListener('abort', abandoned);
    },
  };
}
