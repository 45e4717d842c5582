/** How times, durations and counts read on the page. */

const units: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });
const exact = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function relativeTime(iso: string, now: number): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const diff = at - now;
  // A moment ahead is another clock's rounding, not the future.
  if (diff > 0 && diff < 60_000) return 'just now';
  for (const [unit, ms] of units) {
    if (Math.abs(diff) >= ms || unit === 'second') return Math.abs(diff) < 5000 ? 'just now' : relative.format(Math.round(diff / ms), unit);
  }
  return iso;
}

export const exactTime = (iso: string): string => {
  const at = Date.parse(iso);
  return Number.isNaN(at) ? iso : `${exact.format(at)} (${iso})`;
};

export function duration(seconds: number): string {
  const s = Math.floor(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

export const shortId = (id: string): string => (id.length > 12 ? `${id.slice(0, 8)}…` : id);
