/** Does a gateway answer at this address? GET /manage/v1/health, which is public. */
import type { Static } from '@sinclair/typebox';
import type { HealthSchema } from '../../schemas/api.js';

export type Health = Static<typeof HealthSchema>;

/** The health answer, or null when nothing (or not a gateway) answers within `timeoutMs`. */
export async function probeHealth(baseUrl: string, timeoutMs = 2000): Promise<Health | null> {
  try {
    const res = await fetch(`${baseUrl}/manage/v1/health`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return null;
    const body = (await res.json()) as Partial<Health>;
    return typeof body.status === 'string' && typeof body.backends === 'object' ? (body as Health) : null;
  } catch {
    return null;
  }
}
