/**
 * The console's session cookie: `HttpOnly` (no script reads it), `SameSite=Strict`
 * (no other site's page sends it), `Path=/`, no `Max-Age` (it ends with the
 * browser; the server ends it sooner: console-sessions.ts), and on TLS
 * `Secure` with the `__Host-` prefix, which a browser accepts only from this
 * very origin.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parse, serialize } from 'cookie';

const NAME = 'gw_console';
const TLS_NAME = `__Host-${NAME}`;

/** On TLS here or at a proxy in front (a forged header only makes the cookie stricter). */
export const onTls = (req: FastifyRequest): boolean => req.protocol === 'https' || req.headers['x-forwarded-proto'] === 'https';

export function sessionCookieOf(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const cookies = parse(header);
  return cookies[TLS_NAME] ?? cookies[NAME];
}

export function setSessionCookie(req: FastifyRequest, reply: FastifyReply, id: string): void {
  const secure = onTls(req);
  reply.header('set-cookie', serialize(secure ? TLS_NAME : NAME, id, { httpOnly: true, sameSite: 'strict', path: '/', secure }));
}

export function clearSessionCookie(req: FastifyRequest, reply: FastifyReply): void {
  const secure = onTls(req);
  reply.header('set-cookie', serialize(secure ? TLS_NAME : NAME, '', { httpOnly: true, sameSite: 'strict', path: '/', secure, maxAge: 0 }));
}
