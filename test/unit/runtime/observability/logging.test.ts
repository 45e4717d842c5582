import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUDIT_LEVEL, createLogger, silentLogger, type CreateLoggerOptions } from '../../../../runtime/observability/logging/logger.js';
import { REDACTED, Redactor } from '../../../../runtime/observability/logging/redactor.js';

function capture(opts: Partial<CreateLoggerOptions> = {}) {
  const chunks: string[] = [];
  const logger = createLogger({
    level: 'info',
    redactor: new Redactor(),
    ...opts,
    destination: { write: (s: string) => void chunks.push(s) },
  });
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, chunks, lines };
}

describe('createLogger', () => {
  it('writes one JSON line per call with level, time, msg and name', () => {
    const { logger, lines } = capture({ name: 'gateway' });
    logger.info({ backend: 'github' }, 'connected');
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatchObject({ level: 30, name: 'gateway', backend: 'github', msg: 'connected' });
    expect(typeof lines()[0].time).toBe('number');
  });

  it(`has an audit level of ${AUDIT_LEVEL}, between warn and error`, () => {
    const { logger, lines } = capture({ level: 'trace' });
    expect(AUDIT_LEVEL).toBe(45);
    expect(logger.levels.values.audit).toBe(45);
    logger.audit({ audit: { event_id: 'x' } }, 'mcp_operation');
    expect(lines()[0]).toMatchObject({ level: 45, msg: 'mcp_operation', audit: { event_id: 'x' } });
  });

  it('keeps audit lines when the level is warn', () => {
    const { logger, lines } = capture({ level: 'warn' });
    logger.info('dropped');
    logger.warn('kept warn');
    logger.audit('kept audit');
    expect(lines().map((l) => l.msg)).toEqual(['kept warn', 'kept audit']);
  });

  it('accepts audit as the level itself, and error silences audit', () => {
    const atAudit = capture({ level: 'audit' });
    atAudit.logger.warn('dropped');
    atAudit.logger.audit('kept');
    atAudit.logger.error('kept too');
    expect(atAudit.lines().map((l) => l.msg)).toEqual(['kept', 'kept too']);

    const atError = capture({ level: 'error' });
    atError.logger.audit('dropped');
    expect(atError.lines()).toEqual([]);
  });

  it('passes the audit level to child loggers', () => {
    const { logger, lines } = capture({ level: 'warn' });
    logger.child({ session: 's1' }).audit('from child');
    expect(lines()[0]).toMatchObject({ level: 45, session: 's1', msg: 'from child' });
  });

  it('rejects an unknown level', () => {
    expect(() => capture({ level: 'verbose' })).toThrow();
  });

  it('pretty output is human-readable and names the audit level', () => {
    const { logger, chunks } = capture({ pretty: true, level: 'info', colorize: false });
    logger.info({ backend: 'github' }, 'connected');
    logger.audit('an operation');
    const out = chunks.join('');
    expect(out).toMatch(/INFO: connected/);
    expect(out).toMatch(/backend: "github"/);
    expect(out).toMatch(/AUDIT: an operation/);
    expect(out).not.toContain('{"level"');
    expect(out).not.toContain('\u001b['); // no colour codes when writing to a non-terminal
  });

  it('also writes JSON lines to a file, creating its directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'logger-'));
    try {
      const file = join(dir, 'a', 'b', 'gateway.log');
      const { logger, lines } = capture({ file, level: 'debug' });
      logger.debug('one');
      logger.audit('two');
      logger.trace('not logged');
      const fileLines = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(fileLines.map((l) => [l.level, l.msg])).toEqual([
        [20, 'one'],
        [45, 'two'],
      ]);
      // The console still gets the same lines.
      expect(lines().map((l) => l.msg)).toEqual(['one', 'two']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('redacts with the redactor it was given, and only that one (each gateway has its own)', () => {
    const mine = new Redactor();
    const theirs = new Redactor();
    mine.register('my-own-secret-value');
    theirs.register('their-secret-value');
    const chunks: string[] = [];
    const logger = createLogger({ level: 'info', redactor: mine, destination: { write: (s: string) => void chunks.push(s) } });
    logger.info('value my-own-secret-value and their-secret-value');
    expect(chunks.join('')).toContain(`value ${REDACTED} and their-secret-value`);
  });
});

describe('silentLogger', () => {
  it('discards everything, including audit lines, but has the audit method', () => {
    const logger = silentLogger();
    expect(logger.level).toBe('silent');
    expect(typeof logger.audit).toBe('function');
    expect(() => logger.audit('nothing')).not.toThrow();
    expect(logger.isLevelEnabled('audit')).toBe(false);
  });
});
