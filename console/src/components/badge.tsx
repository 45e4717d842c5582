/** A state word with a tone people read at a glance (and the word itself, never colour alone). */
const TONES: Record<string, 'good' | 'warn' | 'bad' | 'idle'> = {
  ready: 'good',
  healthy: 'good',
  connected: 'good',
  success: 'good',
  allow: 'good',
  allowed: 'good',
  closed: 'good',
  enabled: 'good',
  live: 'good',
  ok: 'good',
  true: 'good',
  degraded: 'warn',
  initializing: 'warn',
  connecting: 'warn',
  pending: 'warn',
  half_open: 'warn',
  reconnecting: 'warn',
  changed: 'warn',
  new: 'warn',
  warning: 'warn',
  failed: 'bad',
  unhealthy: 'bad',
  error: 'bad',
  denied: 'bad',
  deny: 'bad',
  open: 'bad',
  quarantined: 'bad',
  suspicious: 'bad',
  unavailable: 'bad',
  false: 'bad',
};

export function Badge({ value, label }: { value: string | boolean | null | undefined; label?: string }) {
  const text = value === null || value === undefined ? '—' : String(value);
  const tone = TONES[text.toLowerCase()] ?? 'idle';
  return <span class={`badge badge-${tone}`}>{label ?? text}</span>;
}
