/**
 * A browser may send a "simple" cross-origin request without a preflight: a
 * POST with a `text/plain` body, or none. With no management token (the
 * default), a page on any other localhost port could then reload or shut the
 * gateway down. So a state-changing request (anything but GET and HEAD) that
 * a browser sends from another origin is refused: its `Origin` must be the
 * gateway's own (the scheme and Host it was addressed at) or one of
 * `server.allowed_origins`. Clients that are not browsers send no `Origin`
 * and are not affected. Bodies must be JSON: the plugin has no other parser,
 * so a `text/plain` body is a 415.
 */
import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../../schemas/errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

export function crossOriginGuard(allowedOrigins: () => readonly string[]) {
  return async function refuseCrossOrigin(req: FastifyRequest): Promise<void> {
    const origin = req.headers.origin;
    if (origin === undefined || SAFE_METHODS.has(req.method)) return;
    const own = `${req.protocol}://${req.headers.host ?? ''}`.toLowerCase();
    const normalized = origin.toLowerCase().replace(/\/$/, '');
    if (normalized === own || allowedOrigins().some((o) => o.toLowerCase().replace(/\/$/, '') === normalized)) return;
    req.log.warn({ origin, url: req.url }, 'management request refused: cross-origin');
    throw new GatewayError('forbidden', `Forbidden: a cross-origin ${req.method} from '${origin}' may not change the gateway (see server.allowed_origins)`, {
      origin,
    });
  };
}
