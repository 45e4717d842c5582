/**
 * What the SDK client throws, as the gateway names it (runtime/backends/backend-errors.ts):
 * a backend's own JSON-RPC error is never mistaken for the connection being gone
 * (issue 36, defect 2: the v2 SDK throws ProtocolError for what a peer sent and
 * SdkError for what happened here), and a connect refused with an HTTP error
 * quotes what the server said.
 */
import { describe, expect, it } from 'vitest';
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { connectFailureMessage, toBackendError } from '../../../../runtime/backends/backend-errors.js';
import { BackendCallError, BackendUnavailableError } from '../../../../schemas/errors.js';

describe('toBackendError', () => {
  it("a backend's own -32000 keeps its message and code: the backend is not reported as gone", () => {
    const err = toBackendError('db', new ProtocolError(-32000, 'database is locked'), 1000);
    expect(err).toBeInstanceOf(BackendCallError);
    expect(err.message).toBe('database is locked');
    expect((err as BackendCallError).rpcCode).toBe(-32000);
  });

  it('a connection closed here is the backend being unavailable', () => {
    const err = toBackendError('db', new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'), 1000);
    expect(err).toBeInstanceOf(BackendUnavailableError);
    expect(err.message).toContain('connection closed');
  });
});

describe('connectFailureMessage', () => {
  it("quotes an HTTP server's answer after the SDK's words, and nothing else for other errors", () => {
    const http = new SdkHttpError(SdkErrorCode.EraNegotiationFailed, 'Version negotiation failed: the server answered the probe with HTTP 500', {
      status: 500,
      text: 'upstream refused Authorization=Bearer abc',
    });
    expect(connectFailureMessage(http)).toBe(
      'Version negotiation failed: the server answered the probe with HTTP 500: upstream refused Authorization=Bearer abc',
    );
    expect(connectFailureMessage(new Error('connect timed out after 5000 ms'))).toBe('connect timed out after 5000 ms');
  });
});
