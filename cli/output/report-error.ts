/**
 * How a failed client command ends: the server's `error` and `message` (exit
 * 1), the URL that did not answer with a hint (exit 3), a 401 with the token
 * that is wanted (exit 4), or a usage problem (exit 2). Anything else is a bug and keeps its stack. Messages can carry
 * what a backend said, so they reach the terminal made terminal-safe.
 */
import type { Writable } from 'node:stream';
import { ApiError, AuthenticationError, UnreachableError, type CredentialKind } from '../client/errors.js';
import { EXIT } from './exit-codes.js';
import type { Colors } from './colors.js';
import { terminalSafe } from './terminal-safe.js';

/** A command line that parses but makes no sense (bad value, missing argument). */
export class UsageFailure extends Error {}

/** The command did what it could and failed without a server error (e.g. an unknown backend name). */
export class CommandFailure extends Error {}

/** A failure and what to do about it on this command line (e.g. the flag that avoids it), printed after it. */
export class HintedFailure extends Error {
  constructor(
    readonly failure: unknown,
    readonly hint: string,
  ) {
    super(hint);
  }
}

export function reportError(err: unknown, stderr: Writable, c: Colors): number {
  if (err instanceof HintedFailure) {
    const code = reportError(err.failure, stderr, c);
    stderr.write(`${c.dim(`Hint: ${err.hint}`)}\n`);
    return code;
  }
  if (err instanceof UsageFailure) {
    stderr.write(`${c.red('Usage error:')} ${terminalSafe(err.message)}\n`);
    return EXIT.usage;
  }
  if (err instanceof AuthenticationError) {
    stderr.write(`${c.red(`Authentication failed (401 ${terminalSafe(err.body.error)}):`)} ${terminalSafe(err.body.message)}\n`);
    stderr.write(`${TOKEN_HINT[err.credential]}\n`);
    return EXIT.authentication;
  }
  if (err instanceof ApiError) {
    stderr.write(`${c.red(`Error ${err.status} ${terminalSafe(err.body.error)}:`)} ${terminalSafe(err.body.message)}\n`);
    const details = Object.keys(err.body.details).length ? JSON.stringify(err.body.details) : '';
    if (details) stderr.write(`${c.dim(`details: ${terminalSafe(details)}`)}\n`);
    return EXIT.failure;
  }
  if (err instanceof UnreachableError) {
    stderr.write(`${c.red(`Cannot reach the gateway at ${err.url}`)} (${terminalSafe(err.reason)})\n`);
    stderr.write(`Is it running? See \`gateway status\`; choose a server with -s URL or GATEWAY_URL.\n`);
    return EXIT.unreachable;
  }
  if (isMcpError(err) || err instanceof CommandFailure) {
    // An McpError's message already reads "MCP error <code>: …".
    stderr.write(`${c.red('Error:')} ${terminalSafe(err.message)}\n`);
    return EXIT.failure;
  }
  stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
  return EXIT.failure;
}

/** What to do about a 401, by the credentials it was about. */
const TOKEN_HINT: Record<CredentialKind, string> = {
  management: 'The management API wants its token: -t TOKEN, or GATEWAY_MGMT_TOKEN.',
  mcp: "The gateway's /mcp wants a client token (incoming_auth): --mcp-token TOKEN, or GATEWAY_MCP_TOKEN; without one, tools call, resources read and prompts get go through the management API.",
};

/** The SDK's McpError (a JSON-RPC error answer), recognised without loading the SDK for every command. */
function isMcpError(err: unknown): err is Error & { code: number } {
  return err instanceof Error && err.name === 'McpError' && typeof (err as { code?: unknown }).code === 'number';
}
