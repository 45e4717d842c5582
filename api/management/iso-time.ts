/**
 * Parses the ISO 8601 timestamps the API accepts (`since`): a date, or a date
 * and time with optional seconds, fraction and offset. Without an offset the
 * time is UTC. Impossible dates (2024-02-30) are rejected, not rolled over.
 */
import { BadRequestError } from '../../schemas/errors.js';

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

export function parseIsoTimestamp(text: string): Date | undefined {
  const m = ISO.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone = 'Z'] = m;
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (day.getUTCFullYear() !== Number(y) || day.getUTCMonth() !== Number(mo) - 1 || day.getUTCDate() !== Number(d)) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  const offset = /^[+-]\d{2}$/.test(zone) ? `${zone}:00` : /^[+-]\d{4}$/.test(zone) ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone.toUpperCase();
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${frac.slice(0, 4)}${offset}`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A query parameter that must be such a timestamp (`since`, `until`): its date, or the 400 that names it. */
export function isoQueryParam(name: string, text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  const date = parseIsoTimestamp(text);
  if (date) return date;
  throw new BadRequestError(`querystring/${name} is not a valid ISO 8601 timestamp: ${text}`, {
    location: 'querystring',
    problems: [{ path: `querystring/${name}`, message: 'must be an ISO 8601 date or date-time' }],
  });
}
