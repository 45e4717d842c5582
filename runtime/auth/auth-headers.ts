/**
 * The headers of an HTTP backend once its `auth` is taken into account.
 * `auth` wins over a configured `Authorization` header: with `bearer` the
 * header carries that token, with `oauth` the transport sets it from
 * the current access token, and a stale configured value must not replace it.
 */
import type { HttpBackendSpec } from '../../schemas/config.js';

export function backendHeaders(spec: HttpBackendSpec): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(spec.headers ?? {})) {
    if (spec.auth && key.toLowerCase() === 'authorization') continue;
    headers[key] = value;
  }
  if (spec.auth?.type === 'bearer') headers.Authorization = `Bearer ${spec.auth.token}`;
  return headers;
}
