/**
 * The status and JSON-RPC code of a refusal on the MCP endpoints are picked
 * in api/error-mapping.ts from the typed error, not by whoever throws it.
 */
import { describe, expect, it } from 'vitest';
import { mcpHttpError, unanswerableRefusal } from '../../../api/error-mapping.js';
import { ProtocolRefusedError, RequestIdInFlightError, SessionNotFoundError } from '../../../schemas/errors.js';
import { RpcCode } from '../../../schemas/json-rpc-codes.js';
import { unanswerableReason } from '../../../runtime/transports/json-rpc.js';

const refusal = (err: unknown) => {
  const { status, body } = mcpHttpError(err);
  return { status, code: body.error.code, id: body.id };
};

describe('refusals on the MCP endpoints (api/error-mapping.ts)', () => {
  it('a request the SDK would drop: in band it is that request’s answer (200), otherwise an HTTP-level 400', () => {
    const unknownMember = unanswerableReason({ jsonrpc: '2.0', id: 7, method: 'tools/list', extra: 1 })!;
    const badMeta = unanswerableReason({ jsonrpc: '2.0', id: 'x', method: 'tools/list', params: { _meta: 5 } })!;
    expect(refusal(unanswerableRefusal(unknownMember, 7, true))).toEqual({ status: 200, code: RpcCode.InvalidRequest, id: 7 });
    expect(refusal(unanswerableRefusal(badMeta, 'x', true))).toEqual({ status: 200, code: RpcCode.InvalidParams, id: 'x' });
    // A batch names no single request; /messages answers on the stream: both refuse at the HTTP level.
    expect(refusal(unanswerableRefusal(badMeta, null, true))).toEqual({ status: 400, code: RpcCode.InvalidParams, id: null });
    expect(refusal(unanswerableRefusal(unknownMember, 7, false))).toEqual({ status: 400, code: RpcCode.InvalidRequest, id: 7 });
  });

  it('a refusal without a status from the SDK gets the one its code names', () => {
    expect(refusal(new RequestIdInFlightError([3], false))).toEqual({ status: 400, code: RpcCode.InvalidRequest, id: 3 });
    expect(refusal(new ProtocolRefusedError(RpcCode.MethodNotFound, 'no such method', undefined, 1))).toMatchObject({ status: 404 });
    expect(refusal(new ProtocolRefusedError(RpcCode.InvalidParams, 'bad envelope', undefined, 1))).toMatchObject({ status: 400 });
    // The SDK's classification names its own status, which is kept.
    expect(refusal(new ProtocolRefusedError(RpcCode.InvalidRequest, 'no', undefined, null, 405))).toMatchObject({ status: 405 });
  });

  it('a typed endpoint error has its status and code by its error code', () => {
    expect(refusal(new SessionNotFoundError())).toEqual({ status: 404, code: RpcCode.SessionNotFound, id: null });
  });
});
