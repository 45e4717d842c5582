/**
 * Every JSON-RPC error code the gateway sends, by name. No other module
 * writes a numeric code; api/error-mapping.ts decides which one an error gets.
 */
export const RpcCode = {
  /** The body is not JSON. */
  ParseError: -32700,
  /** JSON, but not a JSON-RPC message or batch; or a request id already in flight. */
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  /** Unknown tool or prompt name, malformed params, unknown log level. */
  InvalidParams: -32602,
  InternalError: -32603,
  /**
   * A transport-level refusal (missing session header, wrong Accept, wrong
   * method, forbidden Host/Origin, too many sessions): the code the SDK's
   * transports use for these.
   */
  ServerError: -32000,
  /** Unknown or closed session (the SDK's streamable HTTP transport uses this code). */
  SessionNotFound: -32001,
  /** Unknown resource URI (MCP convention). */
  ResourceNotFound: -32002,
  /** A forwarded request ran out of time (the SDK's RequestTimeout). */
  RequestTimeout: -32001,
  /** 2026-07-28: an `Mcp-Method`, `Mcp-Name` or `MCP-Protocol-Version` header disagrees with the body. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability its `_meta` envelope does not declare. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: a protocol revision the gateway does not serve (`data.supported` lists those it does). */
  UnsupportedProtocolVersion: -32022,
} as const;
