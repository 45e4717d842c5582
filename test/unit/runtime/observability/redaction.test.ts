import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../runtime/observability/logging/logger.js';
import { MIN_SECRET_LENGTH, REDACTED, Redactor, SecretTooShortError } from '../../../../runtime/observability/logging/redactor.js';

const SECRET = 'sk-live-0123456789abcdef';

/** A logger writing JSON lines into an array, with its own redactor. */
function capture(opts: { pretty?: boolean; file?: string; secrets?: string[] } = {}) {
  const redactor = new Redactor();
  for (const s of opts.secrets ?? [SECRET]) redactor.register(s);
  const chunks: string[] = [];
  const logger = createLogger({
    level: 'trace',
    redactor,
    pretty: opts.pretty,
    file: opts.file,
    destination: { write: (s: string) => void chunks.push(s) },
  });
  return { logger, redactor, chunks, text: () => chunks.join('') };
}

describe('Redactor', () => {
  it('returns the input unchanged (same string) when nothing is registered', () => {
    const r = new Redactor();
    const text = `token ${SECRET}`;
    expect(r.redact(text)).toBe(text);
    expect(r.hasSecrets).toBe(false);
    expect(r.size).toBe(0);
  });

  it('replaces every occurrence of every registered secret', () => {
    const r = new Redactor();
    r.register(SECRET);
    r.register('another-secret-value');
    expect(r.redact(`a=${SECRET} b=another-secret-value c=${SECRET}`)).toBe(`a=${REDACTED} b=${REDACTED} c=${REDACTED}`);
    expect(r.hasSecrets).toBe(true);
    expect(r.size).toBe(2);
  });

  it('is idempotent on registration', () => {
    const r = new Redactor();
    r.register(SECRET);
    r.register(SECRET);
    expect(r.size).toBe(1);
  });

  it('treats regex metacharacters in secrets literally', () => {
    const r = new Redactor();
    r.register('a.b*c+d?(e)[f]{g}|h^$\\/');
    expect(r.redact('x a.b*c+d?(e)[f]{g}|h^$\\/ y')).toBe(`x ${REDACTED} y`);
    // The metacharacters must not act as wildcards.
    expect(r.redact('x aXbbbcddd(e)[f]{g}|h^$\\/ y')).toBe('x aXbbbcddd(e)[f]{g}|h^$\\/ y');
  });

  it('prefers the longest secret when one contains another', () => {
    const r = new Redactor();
    r.register('password');
    r.register('password-with-suffix');
    expect(r.redact('v=password-with-suffix')).toBe(`v=${REDACTED}`);
  });

  it('redacts the JSON-escaped form of a secret containing quotes or backslashes', () => {
    const r = new Redactor();
    const secret = 'pa"ss\\word\n42';
    r.register(secret);
    const line = JSON.stringify({ msg: `value ${secret}` });
    const redacted = r.redact(line);
    expect(redacted).not.toContain(JSON.stringify(secret).slice(1, -1));
    expect(JSON.parse(redacted)).toEqual({ msg: `value ${REDACTED}` });
    // Doubly escaped: a JSON document logged as a string field.
    const nested = JSON.stringify({ body: JSON.stringify({ token: secret }) });
    expect(JSON.parse(r.redact(nested))).toEqual({ body: JSON.stringify({ token: REDACTED }) });
  });

  it(`refuses secrets shorter than ${MIN_SECRET_LENGTH} characters`, () => {
    const r = new Redactor();
    expect(() => r.register('short')).toThrow(SecretTooShortError);
    expect(() => r.register('x'.repeat(MIN_SECRET_LENGTH - 1))).toThrow(SecretTooShortError);
    expect(() => r.register('x'.repeat(MIN_SECRET_LENGTH))).not.toThrow();
    try {
      r.register('tiny');
    } catch (err) {
      expect(err).toBeInstanceOf(SecretTooShortError);
      expect((err as SecretTooShortError).message).not.toContain('tiny');
      expect((err as SecretTooShortError).code).toBe('config_invalid');
    }
  });

  it('handles many secrets', () => {
    const r = new Redactor();
    const secrets = Array.from({ length: 2000 }, (_, i) => `secret-value-${i.toString().padStart(6, '0')}`);
    for (const s of secrets) r.register(s);
    const text = secrets.filter((_, i) => i % 97 === 0).join(' ');
    const out = r.redact(text);
    expect(out.split(' ').every((w) => w === REDACTED)).toBe(true);
    const start = performance.now();
    for (let i = 0; i < 1000; i++) r.redact(`{"level":30,"msg":"ordinary line number ${i} with no secret"}`);
    expect(performance.now() - start).toBeLessThan(2000);
  });
});

describe('redaction in log output', () => {
  it('redacts message text', () => {
    const { logger, text } = capture();
    logger.info(`connecting with ${SECRET}`);
    logger.info('format %s', SECRET);
    expect(text()).not.toContain(SECRET);
    const lines = text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string });
    expect(lines.map((l) => l.msg)).toEqual([`connecting with ${REDACTED}`, `format ${REDACTED}`]);
  });

  it('redacts nested objects and arrays', () => {
    const { logger, text } = capture();
    logger.info({ headers: { authorization: `Bearer ${SECRET}` }, list: ['a', { deep: [SECRET] }] }, 'request');
    expect(text()).not.toContain(SECRET);
    const line = JSON.parse(text()) as { headers: { authorization: string }; list: unknown[] };
    expect(line.headers.authorization).toBe(`Bearer ${REDACTED}`);
    expect(line.list).toEqual(['a', { deep: [REDACTED] }]);
  });

  it('redacts error messages and stacks', () => {
    const { logger, text } = capture();
    const err = new Error(`backend rejected ${SECRET}`);
    logger.error({ err }, 'failed');
    logger.error(new Error(`second ${SECRET}`));
    logger.warn({ error: new Error(`under the error key ${SECRET}`) }, 'also serialized');
    expect(text()).not.toContain(SECRET);
    const [first, second, third] = text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    expect(first.err.message).toBe(`backend rejected ${REDACTED}`);
    expect(first.err.stack).toContain(`Error: backend rejected ${REDACTED}`);
    expect(second.msg).toBe(`second ${REDACTED}`);
    expect(second.err.stack).toContain(REDACTED);
    expect(third.error.message).toBe(`under the error key ${REDACTED}`);
  });

  it('redacts child-logger bindings, including secrets registered after the child was made', () => {
    const { logger, redactor, text } = capture();
    const child = logger.child({ backend: 'github', token: SECRET });
    const late = 'registered-after-child-creation';
    const grandchild = child.child({ other: late });
    redactor.register(late);
    grandchild.info('hello');
    expect(text()).not.toContain(SECRET);
    expect(text()).not.toContain(late);
    const line = JSON.parse(text()) as Record<string, unknown>;
    expect(line).toMatchObject({ backend: 'github', token: REDACTED, other: REDACTED, msg: 'hello' });
  });

  it('redacts the pretty console output', () => {
    const { logger, text } = capture({ pretty: true });
    logger.child({ token: SECRET }).error({ nested: { key: SECRET }, err: new Error(`boom ${SECRET}`) }, `msg ${SECRET}`);
    const out = text();
    expect(out).toContain(`msg ${REDACTED}`);
    expect(out).toContain(`boom ${REDACTED}`);
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain('{"level"'); // really prettified, not JSON
  });

  it('redacts the file output', () => {
    const dir = mkdtempSync(join(tmpdir(), 'redact-'));
    try {
      const file = join(dir, 'nested', 'gateway.log');
      const { logger, text } = capture({ file });
      logger.child({ token: SECRET }).info({ deep: [{ k: SECRET }] }, `file ${SECRET}`);
      const content = readFileSync(file, 'utf8');
      expect(content).not.toContain(SECRET);
      expect(JSON.parse(content)).toMatchObject({ token: REDACTED, deep: [{ k: REDACTED }], msg: `file ${REDACTED}` });
      expect(text()).not.toContain(SECRET);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('redacts JSON-escaped secrets and keeps the line valid JSON', () => {
    const secret = 'quo"te\\back\tslash';
    const { logger, text } = capture({ secrets: [secret] });
    logger.info({ field: secret, nested: { s: `x${secret}y` } }, `m ${secret}`);
    const raw = text();
    expect(raw).not.toContain(JSON.stringify(secret).slice(1, -1));
    expect(JSON.parse(raw)).toMatchObject({ field: REDACTED, nested: { s: `x${REDACTED}y` }, msg: `m ${REDACTED}` });
  });

  it('redacts audit-level lines', () => {
    const { logger, text } = capture();
    logger.audit({ audit: { outcome: { error: SECRET } } }, 'mcp_operation');
    expect(text()).not.toContain(SECRET);
    expect(JSON.parse(text())).toMatchObject({ level: 45, audit: { outcome: { error: REDACTED } } });
  });
});
