/**
 * The parts of the plugin chain that need no gateway: the `plugins:`
 * config checks (key path and line), the detectors' validations (Luhn,
 * IBAN, entropy, key-like names, UUIDs never matched), the rate limiter's
 * keys, whose cached answers a caller may see, which failures count, the
 * conditions, and a failed call's error and a log message as the guards
 * rewrite them.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../../controller/config/config-loader.js';
import {
  ConfigError,
  BackendCallError,
  BackendTimeoutError,
  BackendUnavailableError,
  RateLimitedError,
  RequestCancelledError,
} from '../../../../schemas/errors.js';
import { ibanValid, luhnValid } from '../../../../runtime/plugins/detectors/checksums.js';
import { isHighEntropyToken, isKeyLikeName } from '../../../../runtime/plugins/detectors/entropy.js';
import { redactSecrets } from '../../../../runtime/plugins/detectors/secrets.js';
import { piiDetectors, redactPii } from '../../../../runtime/plugins/detectors/pii.js';
import { cacheIdentity, clientIdentity } from '../../../../runtime/plugins/identity.js';
import { rateLimiter } from '../../../../runtime/plugins/builtins/rate-limiter.js';
import { MemoryRateCounterStore } from '../../../../runtime/plugins/builtins/rate-counter-store.js';
import { PluginSet } from '../../../../runtime/plugins/plugin-set.js';
import { isBackendFailure, isTransportFailure } from '../../../../runtime/plugins/builtins/backend-failures.js';
import { callMatcher } from '../../../../runtime/plugins/conditions.js';
import { mapErrorTexts, mapNotificationTexts } from '../../../../runtime/plugins/payload.js';
import { silentLogger } from '../../../../runtime/observability/logging/logger.js';
import type { PluginCall } from '../../../../runtime/plugins/plugin.js';

function problems(yaml: string, configDir?: string): string[] {
  try {
    parseConfigText(yaml, { configDir });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => `${p.path}${p.line ? `@${p.line}` : ''}: ${p.message}`);
    throw err;
  }
  return [];
}

describe('plugins: in the config', () => {
  it('fills every default of an entry and of a built-in’s settings', () => {
    const config = parseConfigText('plugins:\n  - name: rate_limiter\n  - name: pii_filter\n    settings: { action: block }\n');
    expect(config.plugins).toEqual([
      {
        name: 'rate_limiter',
        settings: { max_requests: 60, window_s: 60, per: 'client' },
        enabled: true,
        priority: 100,
        timeout_s: 5,
        execution_mode: 'enforce_ignore_error',
      },
      {
        name: 'pii_filter',
        settings: { action: 'block', where: 'both', categories: ['email', 'phone', 'credit_card', 'iban'] },
        enabled: true,
        priority: 100,
        timeout_s: 5,
        execution_mode: 'enforce_ignore_error',
      },
    ]);
    expect(parseConfigText('version: 1\n').plugins).toEqual([]);
  });

  it('names the key path and line of a wrong setting, an unknown built-in, a misplaced module and a missing file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-plugins-'));
    writeFileSync(join(dir, 'here.mjs'), 'export const hooks = {};\n');
    const found = problems(
      [
        'plugins:',
        '  - name: rate_limiter',
        '    settings: { max_request: 3 }',
        '  - name: circuit_breaker',
        '    settings: { failure_threshold: 0 }',
        '  - name: rate_limitr',
        '  - name: pii_filter',
        '    module: ./here.mjs',
        '  - name: mine',
        '    module: ./missing.mjs',
        '  - name: ok',
        '    module: ./here.mjs',
        '    execution_mode: strict',
        '    conditions: { methods: [tools/list] }',
      ].join('\n'),
      dir,
    );
    expect(found).toEqual(
      expect.arrayContaining([
        'plugins.0.settings.max_request@3: unknown key; did you mean `max_requests`?',
        'plugins.1.settings.failure_threshold@5: must be >= 1',
        "plugins.2.name@6: no built-in plugin 'rate_limitr' (did you mean `rate_limiter`?); a plugin of your own needs `module`",
        "plugins.3.name@7: 'pii_filter' is a built-in plugin; give the module a name of its own",
        `plugins.4.module@10: no such file: ${join(dir, 'missing.mjs')}`,
      ]),
    );
    expect(found.some((p) => p.startsWith('plugins.5.execution_mode@13'))).toBe(true);
    expect(found.some((p) => p.startsWith('plugins.5.conditions.methods.0@14'))).toBe(true);
    // Only the errors inside the `then` of a settings check, not the `if` that wraps them.
    expect(found.some((p) => p.includes('"then"'))).toBe(false);
  });

  it('makes a module path absolute against the config file’s folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-plugins-'));
    writeFileSync(join(dir, 'mine.mjs'), 'export const hooks = {};\n');
    expect(parseConfigText('plugins:\n  - { name: mine, module: ./mine.mjs }\n', { configDir: dir }).plugins[0]?.module).toBe(join(dir, 'mine.mjs'));
  });
});

describe('detectors', () => {
  it('Luhn and IBAN checksums', () => {
    expect(luhnValid('4111 1111 1111 1111')).toBe(true);
    expect(luhnValid('4111 1111 1111 1112')).toBe(false);
    expect(ibanValid('DE89 3704 0044 0532 0130 00')).toBe(true);
    expect(ibanValid('DE89 3704 0044 0532 0130 01')).toBe(false);
    expect(ibanValid('GB82WEST12345698765432')).toBe(true);
  });

  it('key-like names and high-entropy values', () => {
    for (const name of ['api_key', 'apiKey', 'X-API-Key', 'githubToken', 'db.password', 'client_secret', 'Authorization', 'AWS_SECRET_ACCESS_KEY'])
      expect(isKeyLikeName(name), name).toBe(true);
    for (const name of ['max_tokens', 'author', 'keyboard', 'monkey', 'session_id', 'description']) expect(isKeyLikeName(name), name).toBe(false);
    expect(isHighEntropyToken('q8Zr3LmN0pXv7TbK2wYs9dFh')).toBe(true);
    expect(isHighEntropyToken('123e4567-e89b-12d3-a456-426614174000')).toBe(false);
    expect(isHighEntropyToken('aaaaaaaaaaaaaaaaaaaa')).toBe(false);
    expect(isHighEntropyToken('correct horse battery staple')).toBe(false);
    expect(isHighEntropyToken('internationalization')).toBe(false);
  });

  it('a key-like key with a random value is a secret, the same value under another key is not', () => {
    const tally: Record<string, number> = {};
    expect(redactSecrets('q8Zr3LmN0pXv7TbK2wYs9dFh', 'apiKey', tally)).toBe('[REDACTED:high_entropy_secret]');
    expect(redactSecrets('q8Zr3LmN0pXv7TbK2wYs9dFh', 'request_id', tally)).toBe('q8Zr3LmN0pXv7TbK2wYs9dFh');
    expect(tally).toEqual({ high_entropy_secret: 1 });
  });

  it('a random value after a key-like name in text, in the ways text writes it; the name stays', () => {
    const v = 'q8Zr3LmN0pXv7TbK2wYs9dFh';
    const tally: Record<string, number> = {};
    expect(redactSecrets(`set api_key=${v} now`, undefined, tally)).toBe('set api_key=[REDACTED:high_entropy_secret] now');
    expect(redactSecrets(`{"client_secret": "${v}"}`, undefined, tally)).toBe('{"client_secret": "[REDACTED:high_entropy_secret]"}');
    expect(redactSecrets(`password: '${v}'`, undefined, tally)).toBe("password: '[REDACTED:high_entropy_secret]'");
    expect(redactSecrets(`my.db.password = ${v}`, undefined, tally)).toBe('my.db.password = [REDACTED:high_entropy_secret]');
    expect(redactSecrets(`githubToken:${v}`, undefined, tally)).toBe('githubToken:[REDACTED:high_entropy_secret]');
    expect(tally).toEqual({ high_entropy_secret: 5 });
    // Not a key-like name, or not right before the separator: left alone.
    expect(redactSecrets(`request_id=${v}, token for ${v}`, undefined, tally)).toBe(`request_id=${v}, token for ${v}`);
    expect(tally).toEqual({ high_entropy_secret: 5 });
  });

  it('never takes a UUID for a card, a phone number or a key', () => {
    const all = piiDetectors(['email', 'phone', 'credit_card', 'iban']);
    for (const uuid of ['12345678-1234-5678-1234-567812345678', '41111111-1111-1111-1111-111111111111', '550e8400-e29b-41d4-a716-446655440000']) {
      const tally: Record<string, number> = {};
      expect(redactPii(`id ${uuid}.`, all, tally)).toBe(`id ${uuid}.`);
      expect(redactSecrets(`token: ${uuid}`, undefined, tally)).toBe(`token: ${uuid}`);
      expect(tally).toEqual({});
    }
  });

  it('redacts only the categories asked for', () => {
    const tally: Record<string, number> = {};
    expect(redactPii('mail jane@example.com or call +1 415 555 0132', piiDetectors(['phone']), tally)).toBe('mail jane@example.com or call [REDACTED:phone]');
    expect(tally).toEqual({ phone: 1 });
  });
});

describe('identity', () => {
  const caller = (over: Record<string, unknown>) => ({ sessionId: 's1', transport: 'streamable-http' as const, clientIp: '10.0.0.1', ...over });

  it('per client: the authenticated user when there is one, else the address', () => {
    expect(clientIdentity(caller({}))).toBe('ip:10.0.0.1');
    expect(clientIdentity(caller({ userId: 'ann' }))).toBe('user:ann');
    expect(clientIdentity(caller({ userId: 'ann', sessionId: 's2', clientIp: '10.0.0.2' }))).toBe('user:ann');
  });

  it('cached answers: a user’s across sessions, else the session’s alone (never shared by an address)', () => {
    expect(cacheIdentity(caller({ userId: 'ann' }))).toBe(cacheIdentity(caller({ userId: 'ann', sessionId: 's2' })));
    expect(cacheIdentity(caller({ userId: 'ann' }))).not.toBe(cacheIdentity(caller({ userId: 'bob' })));
    expect(cacheIdentity(caller({}))).not.toBe(cacheIdentity(caller({ sessionId: 's2' })));
  });
});

describe('rate_limiter keys', () => {
  const call = (over: { name?: string; backend?: string; session?: string; ip?: string }): PluginCall => ({
    method: 'tools/call',
    name: over.name ?? 't1',
    backend: over.backend ?? 'b1',
    originalName: 't1',
    arguments: {},
    caller: { sessionId: over.session ?? 's1', transport: 'streamable-http', clientIp: over.ip ?? '10.0.0.1' },
  });
  const limiter = (per: 'client' | 'session' | 'tool' | 'backend') =>
    rateLimiter(
      { max_requests: 1, window_s: 60, per },
      { name: 'rate_limiter', log: silentLogger(), events: () => undefined, rateStore: () => new MemoryRateCounterStore() },
    );
  const refused = (plugin: ReturnType<typeof limiter>, c: PluginCall) => {
    try {
      // The memory store answers at once: the hook throws or returns nothing, no promise.
      expect(plugin.pre!(c, () => undefined)).toBeUndefined();
      return false;
    } catch (err) {
      expect(err).toBeInstanceOf(RateLimitedError);
      return true;
    }
  };

  it.each([
    ['client', { session: 's2', name: 't2', backend: 'b2' }, { ip: '10.0.0.2' }],
    ['session', { name: 't2', backend: 'b2' }, { session: 's2' }],
    ['tool', { session: 's2', backend: 'b2', ip: '10.0.0.2' }, { name: 't2' }],
    ['backend', { session: 's2', name: 't2', ip: '10.0.0.2' }, { backend: 'b2' }],
  ] as const)('per %s: counts together what shares the key, apart what does not', (per, same, other) => {
    const plugin = limiter(per);
    expect(refused(plugin, call({}))).toBe(false);
    expect(refused(plugin, call(same))).toBe(true);
    expect(refused(plugin, call(other))).toBe(false);
  });
});

describe('rate_limiter ids for shared counts', () => {
  // Each replica builds its own PluginSet from the same config: every entry must get the same id in each, and its own id.
  const idsOf = async (yaml: string): Promise<string[]> => {
    const ids: string[] = [];
    const set = new PluginSet({ log: silentLogger(), events: () => undefined, rateStore: (limiter) => (ids.push(limiter), new MemoryRateCounterStore()) });
    await set.apply(parseConfigText(yaml).plugins);
    await set.close();
    return ids;
  };
  const yaml = `plugins:
  - name: rate_limiter
    settings: { max_requests: 2, per: client }
    conditions: { tools: [a] }
  - name: rate_limiter
    settings: { max_requests: 2, per: client }
    conditions: { tools: [b] }
  - name: rate_limiter
    settings: { max_requests: 5, per: client }
`;

  it('the same on every replica, different for each entry, even for identical ones', async () => {
    const [first, second] = [await idsOf(yaml), await idsOf(yaml)];
    expect(first).toHaveLength(3);
    expect(second).toEqual(first);
    expect(new Set(first).size).toBe(3);
    expect(first.every((id) => id.startsWith('rate_limiter:'))).toBe(true);
  });
});

describe('which failures count', () => {
  it('retries transport failures and timeouts only; the circuit also counts server-side errors', () => {
    const timeout = new BackendTimeoutError('b', 1000);
    const gone = new BackendUnavailableError('b', 'connection closed');
    const broken = new BackendCallError('b', 'socket hang up');
    const internal = new BackendCallError('b', 'boom', { code: -32603 });
    const invalid = new BackendCallError('b', 'bad', { code: -32602 });
    const cancelled = new RequestCancelledError('client went away');
    expect([timeout, gone, broken, internal, invalid, cancelled].map(isTransportFailure)).toEqual([true, true, true, false, false, false]);
    expect([timeout, gone, broken, internal, invalid, cancelled].map(isBackendFailure)).toEqual([true, true, true, true, false, false]);
  });
});

describe('conditions', () => {
  const call = (method: PluginCall['method'], name: string, backend = 'b'): PluginCall => ({
    method,
    name,
    backend,
    originalName: name,
    arguments: {},
    caller: { sessionId: 's', transport: 'streamable-http' },
  });

  it('none: every call', () => {
    expect(callMatcher(undefined)).toBeUndefined();
  });

  it('tools globs: matching tool calls only; methods and backends narrow further; hooks decide too', () => {
    const m = callMatcher({ tools: ['gh_*'], backends: ['gh'] })!;
    expect(m(call('tools/call', 'gh_search', 'gh'))).toBe(true);
    expect(m(call('tools/call', 'gh_search', 'other'))).toBe(false);
    expect(m(call('tools/call', 'fs_read', 'gh'))).toBe(false);
    expect(m(call('prompts/get', 'gh_prompt', 'gh'))).toBe(false);
    const hooked = callMatcher({ methods: ['tools/call', 'prompts/get'] }, new Set(['prompts/get', 'resources/read']))!;
    expect([call('tools/call', 'x'), call('prompts/get', 'x'), call('resources/read', 'x')].map(hooked)).toEqual([false, true, false]);
  });
});

describe("a failed call's error, reworded", () => {
  const key = ['AKIA', 'IOSFODNN7EXAMPLE'].join('');
  const redact = (text: string) => text.replaceAll(key, '[REDACTED]');

  it('is a copy of the same class with its code and data, the texts replaced, without the cause that held them', () => {
    const cause = new Error(`MCP error -32603: ${key}`);
    const err = new BackendCallError('b', `denied for ${key}`, { code: -32603, data: { why: key, n: 1 } }, cause);
    const out = mapErrorTexts(err, redact) as BackendCallError;
    expect(out).not.toBe(err);
    expect(out).toBeInstanceOf(BackendCallError);
    expect([out.message, out.code, out.rpcCode, out.rpcData, out.details, out.name]).toEqual([
      'denied for [REDACTED]',
      'backend_error',
      -32603,
      { why: '[REDACTED]', n: 1 },
      { backend: 'b', rpc_code: -32603 },
      'BackendCallError',
    ]);
    expect(out.cause).toBeUndefined();
    expect(out.stack).toMatch(/^BackendCallError: denied for \[REDACTED\]\n {4}at /);
    expect(JSON.stringify([out.stack, Object.entries(out)])).not.toContain(key);
    // The original is left as it was.
    expect(err.message).toBe(`denied for ${key}`);
  });

  it('is the same error when nothing changed, and anything thrown that is no Error passes as it is', () => {
    const err = new BackendTimeoutError('b', 1000);
    expect(mapErrorTexts(err, redact)).toBe(err);
    expect(mapErrorTexts(key, redact)).toBe(key);
  });

  it("a log message's data is scanned, a string or any JSON; other notifications are left alone", () => {
    const log = { method: 'notifications/message', params: { level: 'info', logger: 'x', data: { text: key, n: 1 } } };
    expect(mapNotificationTexts(log, redact)).toEqual({ ...log, params: { ...log.params, data: { text: '[REDACTED]', n: 1 } } });
    const clean = { method: 'notifications/message', params: { level: 'info', data: 'fine' } };
    expect(mapNotificationTexts(clean, redact)).toBe(clean);
    const updated = { method: 'notifications/resources/updated', params: { uri: `x://${key}` } };
    expect(mapNotificationTexts(updated, redact)).toBe(updated);
  });
});
