/**
 * `sessions.store: redis` needs `sessions.redis.url`: a cross-key rule the
 * schema cannot state with a useful message. Runs on a config that may be
 * invalid elsewhere, so nothing about its shape is assumed.
 */
import type { ConfigProblem } from '../../schemas/errors.js';

type Loose = Record<string, unknown>;

const asMap = (v: unknown): Loose | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : undefined);

export function sessionStoreProblems(cfg: Loose): ConfigProblem[] {
  const sessions = asMap(cfg.sessions);
  if (sessions?.store !== 'redis') return [];
  const url = asMap(sessions.redis)?.url;
  if (typeof url === 'string' && url !== '') return [];
  return [{ path: 'sessions.redis.url', message: 'is required with `sessions.store: redis` (e.g. `url: ${REDIS_URL}`)' }];
}
