/** The JSON-RPC error a request made through an SDK client failed with; the test fails if it succeeded or failed otherwise. */
import { expect } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

export async function rpcError(call: Promise<unknown>): Promise<McpError> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  expect('error' in outcome, `expected an error, got ${JSON.stringify(outcome)}`).toBe(true);
  const error = (outcome as { error: unknown }).error;
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}
