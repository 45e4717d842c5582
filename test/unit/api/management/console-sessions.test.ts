/** Console sign-ins: ids only the browser holds, idle and absolute expiry, sign-out, and a bounded store. */
import { describe, expect, it } from 'vitest';
import { ConsoleSessions, SESSION_MAX_MS } from '../../../../api/management/console-sessions.js';
import { SignInThrottle, MAX_FAILURES } from '../../../../api/management/sign-in-throttle.js';

const PROOF = { kind: 'management_token', digest: 'x' } as const;

describe('ConsoleSessions', () => {
  it('finds a session by its cookie value only, with its own CSRF token', () => {
    const sessions = new ConsoleSessions(() => 60_000);
    const a = sessions.create(PROOF);
    const b = sessions.create(PROOF);
    expect(a.id).not.toBe(b.id);
    expect(a.session.csrfToken).not.toBe(b.session.csrfToken);
    expect(a.id).toMatch(/^[\w-]{43}$/);
    expect(sessions.use(a.id)).toBe(a.session);
    expect(sessions.use(`${a.id}x`)).toBeUndefined();
    expect(sessions.use(undefined)).toBeUndefined();
  });

  it('ends a session idle longer than the ttl; each use extends it; 12 hours end it anyway', () => {
    let now = 0;
    const sessions = new ConsoleSessions(
      () => 60_000,
      () => now,
    );
    const { id } = sessions.create(PROOF);
    for (now = 50_000; now < SESSION_MAX_MS; now += 50_000) expect(sessions.use(id), `at ${now}`).toBeDefined();
    // Used 50 s ago, so not idle: only the 12 hours end it.
    now = SESSION_MAX_MS + 1;
    expect(sessions.use(id)).toBeUndefined();

    const idle = sessions.create(PROOF);
    now += 60_001;
    expect(sessions.use(idle.id)).toBeUndefined();
  });

  it('signing out ends the session; a new session sweeps expired ones away', () => {
    let now = 0;
    const sessions = new ConsoleSessions(
      () => 1000,
      () => now,
    );
    const { id } = sessions.create(PROOF);
    expect(sessions.end(id)).toBe(true);
    expect(sessions.end(id)).toBe(false);
    expect(sessions.use(id)).toBeUndefined();
    sessions.create(PROOF);
    now = 5000;
    sessions.create(PROOF);
    expect(sessions.size).toBe(1);
  });
});

describe('SignInThrottle', () => {
  it('refuses an address after its failures for the rest of the minute, not another address', () => {
    let now = 0;
    const throttle = new SignInThrottle(() => now);
    for (let i = 0; i < MAX_FAILURES; i++) {
      throttle.check('10.0.0.1');
      throttle.failed('10.0.0.1');
    }
    expect(() => throttle.check('10.0.0.1')).toThrow(/Too many failed sign-ins/);
    throttle.check('10.0.0.2');
    now = 60_001;
    throttle.check('10.0.0.1');
  });
});
