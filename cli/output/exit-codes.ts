/** Exit codes of `gateway` and `gateway-client`, one place (documented in docs/cli.md). */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** The server answered an error, a tool result has `isError: true`, or the action failed. */
  failure: 1,
  /** Bad command line. */
  usage: 2,
  /** Nothing answered at the server URL. */
  unreachable: 3,
  /** The server wanted credentials (401): no token, or one it refused. */
  authentication: 4,
} as const;
