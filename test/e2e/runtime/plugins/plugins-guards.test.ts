/**
 * secrets_detection and pii_filter against a real gateway and real
 * backends: every kind they know is redacted and blocked, in the arguments
 * (the backend never sees it) and in the results (the client never sees
 * it), and nothing is found in ordinary text or UUIDs; in a backend's
 * errors, isError results and relayed log messages too. What was found is
 * audited and counted by kind; the values never reach the audit trail, an
 * error message or the log.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Harness } from '../../../helpers/gateway-harness.js';
import { startGateway } from '../../../helpers/gateway-harness.js';
import { auditRecords, callText, guardrailBackend, pluginRecords, rpcError } from '../../../helpers/plugin-harness.js';
import { managementClient } from '../../../helpers/management-client.js';
import { collectNotifications, type NotificationLog } from '../../../helpers/notifications.js';

/** Samples of each kind, assembled here so no scanner takes this file for a leak. */
const SECRETS: Record<string, string> = {
  aws_access_key: ['AKIA', 'IOSFODNN7EXAMPLE'].join(''),
  private_key: ['-----BEGIN RSA PRIVATE ', 'KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n-----END RSA PRIVATE KEY-----'].join(
    '',
  ),
  jwt: ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', 'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0', 'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'].join('.'),
  github_token: ['ghp_', '1A2b3C4d5E6f7G8h9I0jKlMnOpQrStUvWxYz'].join(''),
  slack_token: ['xoxb-', '123456789012-abcdefghijABCD'].join(''),
  api_key: ['sk-', 'proj-Ab3dEf6hIj9kLm2nOp5qRs8t'].join(''),
  stripe_key: ['sk_', 'live_4eC39HqLyjWDarjtT1zdp7dc'].join(''),
  google_api_key: ['AIza', 'SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY'].join(''),
  bearer_token: ['q8Zr3LmN0pXv', '7TbK2wYs9dFh'].join(''),
  high_entropy_secret: ['Zx4Qm8Rt2Lp6', 'Vn0Bw5Ky9Hc3'].join(''),
};
/** How each secret sits in text (a bearer token and a random value need their context to be told apart). */
const inText = (kind: string, value: string): string =>
  kind === 'bearer_token' ? `Authorization: Bearer ${value}` : kind === 'high_entropy_secret' ? `client_secret=${value}` : value;
const redactedInText = (kind: string): string =>
  kind === 'bearer_token'
    ? `Authorization: Bearer [REDACTED:${kind}]`
    : kind === 'high_entropy_secret'
      ? `client_secret=[REDACTED:${kind}]`
      : `[REDACTED:${kind}]`;

const PII: Record<string, string[]> = {
  email: ['jane.doe@example.com'],
  phone: ['+1 415 555 0132', '(415) 555-0132', '+44 20 7946 0958'],
  credit_card: ['4111 1111 1111 1111', '5500-0000-0000-0004', '378282246310005'],
  iban: ['DE89 3704 0044 0532 0130 00', 'GB82WEST12345698765432'],
};

const SAMPLES: Array<{ kind: string; value: string; text: string; redacted: string }> = [
  ...Object.entries(SECRETS).map(([kind, value]) => ({ kind, value, text: inText(kind, value), redacted: redactedInText(kind) })),
  ...Object.entries(PII).flatMap(([kind, values]) => values.map((value) => ({ kind, value, text: value, redacted: `[REDACTED:${kind}]` }))),
];

const ORDINARY = [
  'The meeting is on 2026-11-21 at 10:30; version 1.2.3 of order 12345 shipped.',
  'max_tokens=2048, token_count: 512, the token bucket refills 60 tokens a minute.',
  'request 123e4567-e89b-12d3-a456-426614174000 and 550e8400-e29b-41d4-a716-446655440000 done',
  'trace_id: 12345678-1234-5678-1234-567812345678, api_key: 9f8e7d6c-5b4a-4321-8765-0fedcba98765',
  'Card 4111 1111 1111 1112 fails Luhn; IBAN DE89 3704 0044 0532 0130 01 fails its checksum.',
  'Write to support at the office, or call extension 4021; password rules: 12 characters.',
  'git commit 9fceb02d0ae598e95dc970b74767f19372d61af8 on 192.168.100.200 port 8080',
];

describe('secrets_detection and pii_filter', () => {
  let h: Harness;
  let client: Client;
  const guard = (where: string, action: string, tools: string[]) =>
    ['secrets_detection', 'pii_filter'].map((name) => ({ name, settings: { where, action }, conditions: { tools } }));

  beforeAll(async () => {
    h = await startGateway({
      backends: { a: guardrailBackend(), b: guardrailBackend() },
      plugins: [
        ...guard('arguments', 'redact', ['a_echo']),
        ...guard('results', 'redact', ['b_echo']),
        ...guard('arguments', 'block', ['a_counter_write']),
        ...guard('results', 'block', ['b_counter_write']),
      ],
    });
    client = await h.connect();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('redacts every kind in the arguments: the backend gets [REDACTED:<kind>]', async () => {
    for (const s of SAMPLES) expect(await callText(client, 'a_echo', { text: `see ${s.text} here` }), s.kind).toBe(`see ${s.redacted} here`);
  });

  it('redacts every kind in the results, text and structured content alike', async () => {
    for (const s of SAMPLES) {
      const result = await client.callTool({ name: 'b_echo', arguments: { text: `see ${s.text} here` } });
      expect((result.content as Array<{ text: string }>)[0].text, s.kind).toBe(`see ${s.redacted} here`);
      expect(result.structuredContent, s.kind).toEqual({ text: `see ${s.redacted} here` });
    }
  });

  it('blocks every kind in the arguments, naming the kind, never the value; the backend is not called', async () => {
    for (const s of SAMPLES) {
      const err = await rpcError(client.callTool({ name: 'a_counter_write', arguments: { label: `see ${s.text} here` } }));
      expect(err.message, s.kind).toMatch(new RegExp(`Blocked by plugin (secrets_detection|pii_filter): the arguments hold .*${s.kind}`));
      expect(err.data, s.kind).toMatchObject({ error: 'plugin_blocked', where: 'arguments', kinds: { [s.kind]: 1 } });
      expect(JSON.stringify({ message: err.message, data: err.data }), s.kind).not.toContain(s.value);
    }
    // A key-like key with a random value, anywhere in the arguments.
    const err = await rpcError(client.callTool({ name: 'a_counter_write', arguments: { label: 'x', extra: { api_key: SECRETS.high_entropy_secret } } }));
    expect(err.data).toMatchObject({ kinds: { high_entropy_secret: 1 } });
    expect(await callText(client, 'a_counter_write', { label: 'clean' })).toBe('clean#1');
  });

  it('blocks every kind in the results', async () => {
    for (const s of SAMPLES) {
      const err = await rpcError(client.callTool({ name: 'b_counter_write', arguments: { label: `see ${s.text} here` } }));
      expect(err.data, s.kind).toMatchObject({ error: 'plugin_blocked', where: 'result', kinds: { [s.kind]: 1 } });
      expect(err.message, s.kind).not.toContain(s.value);
    }
    expect(await callText(client, 'b_counter_write', { label: 'clean' })).toBe(`clean#${SAMPLES.length + 1}`);
  });

  it('finds nothing in ordinary text and UUIDs', async () => {
    for (const text of ORDINARY) {
      expect(await callText(client, 'a_echo', { text })).toBe(text);
      expect(await callText(client, 'b_echo', { text })).toBe(text);
      expect(await callText(client, 'a_counter_write', { label: text })).toMatch(/#\d+$/);
      expect(await callText(client, 'b_counter_write', { label: text })).toMatch(/#\d+$/);
    }
  });

  it('audits and counts what was found by kind, and no value reaches the audit trail or the log', async () => {
    const records = await auditRecords(h);
    const redactions = records.filter((r) => r.target.capability_name === 'a_echo').flatMap((r) => r.metadata.plugins ?? []);
    expect(redactions.filter((p) => p.action === 'redact' && p.where === 'arguments').length).toBe(SAMPLES.length);
    expect(redactions.every((p) => p.kinds && Object.keys(p.kinds).length === 1)).toBe(true);
    const blocks = records.filter((r) => r.target.capability_name === 'b_counter_write' && r.outcome.status === 'error');
    expect(blocks).toHaveLength(SAMPLES.length);
    expect(blocks[0].metadata.plugins).toEqual([expect.objectContaining({ action: 'block', where: 'result', reason: 'plugin_blocked', enforced: true })]);

    const counters = await pluginRecords(h);
    expect(counters.map((p) => p.name)).toEqual(Array.from({ length: 4 }, () => ['secrets_detection', 'pii_filter']).flat());
    const total = (i: number, key: 'redactions' | 'blocks') => counters[i].counters[key] + counters[i + 1].counters[key];
    expect(total(0, 'redactions')).toBe(SAMPLES.length);
    expect(total(2, 'redactions')).toBe(SAMPLES.length);
    expect(total(4, 'blocks')).toBe(SAMPLES.length + 1);
    expect(total(6, 'blocks')).toBe(SAMPLES.length);

    const audit = readFileSync(join(h.dir, 'audit.jsonl'), 'utf8');
    const logs = h.logs.join('\n');
    for (const s of SAMPLES) {
      expect(audit.includes(s.value), `${s.kind} in the audit trail`).toBe(false);
      expect(logs.includes(s.value), `${s.kind} in the log`).toBe(false);
    }
  });
});

/**
 * What else a backend sends back besides a result: the error of a call it
 * failed (message and JSON-RPC data), an isError result, and the log
 * messages relayed to clients. The guards scan only what comes back
 * (`where: results`), so the backend itself gets the secret and raises it.
 */
describe('secrets and personal data in what a backend sends back besides results', () => {
  let h: Harness;
  let client: Client;
  let notes: NotificationLog;
  const aws = SECRETS.aws_access_key;
  const github = SECRETS.github_token;
  const email = PII.email[0];
  const values = [aws, github, email];
  const leaky = `denied for ${aws} and ${github}; ask ${email}`;
  const redacted = 'denied for [REDACTED:aws_access_key] and [REDACTED:github_token]; ask [REDACTED:email]';

  beforeAll(async () => {
    h = await startGateway({
      backends: { a: guardrailBackend(), b: guardrailBackend() },
      plugins: [
        ...['secrets_detection', 'pii_filter'].map((name) => ({ name, settings: { where: 'results' }, conditions: { backends: ['a'] } })),
        { name: 'secrets_detection', settings: { where: 'results', action: 'block' }, conditions: { backends: ['b'] } },
      ],
    });
    client = await h.connect();
    notes = collectNotifications(client);
  });
  afterAll(async () => {
    await h?.close();
  });

  it("redacts a backend's JSON-RPC error, its message and its data; the code stays the backend's", async () => {
    const err = await rpcError(client.callTool({ name: 'a_throw', arguments: { message: leaky, data: { detail: leaky, hint: github } } }));
    expect(err.code).toBe(-32603);
    expect(err.message).toContain(redacted);
    expect(err.data).toEqual({ detail: redacted, hint: '[REDACTED:github_token]' });
  });

  it('the management API answers the same call with the redacted error', async () => {
    const res = await managementClient(h.url).post('/tools/call', { tool: 'a_throw', arguments: { message: leaky } });
    expect(res.status).toBe(502);
    expect(JSON.stringify(res.body)).toContain(redacted);
    for (const v of values) expect(JSON.stringify(res.body)).not.toContain(v);
  });

  it('redacts an isError result', async () => {
    const result = await client.callTool({ name: 'a_fail', arguments: { message: leaky } });
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: redacted }] });
  });

  it('redacts a log message the backend sends on its way to the client', async () => {
    expect(await callText(client, 'a_log', { level: 'warning', message: leaky })).toBe('logged warning');
    const note = await notes.waitFor('notifications/message', (n) => n.params?.level === 'warning');
    expect(note.params).toMatchObject({ level: 'warning', data: redacted });
  });

  it('action block: the error becomes a block naming the kinds, and a log message holding a secret is not relayed', async () => {
    const err = await rpcError(client.callTool({ name: 'b_throw', arguments: { message: leaky } }));
    expect(err.message).toContain("Blocked by plugin secrets_detection: the backend's error holds secrets: aws_access_key, github_token");
    expect(err.data).toMatchObject({ error: 'plugin_blocked', where: 'error', kinds: { aws_access_key: 1, github_token: 1 } });
    await callText(client, 'b_log', { level: 'info', message: `held ${aws}` });
    await callText(client, 'b_log', { level: 'info', message: 'clean' });
    // Relayed in order: once the clean one is here, the blocked one would have been too.
    await notes.waitFor('notifications/message', (n) => n.params?.data === 'clean');
    expect(notes.all.filter((n) => n.params?.level === 'info').map((n) => n.params?.data)).toEqual(['clean']);
  });

  it('the audit record holds only the redacted error, and names the redaction; no value reaches the audit trail or the log', async () => {
    const records = await auditRecords(h);
    const thrown = records.find((r) => r.target.capability_name === 'a_throw' && r.source.session_id !== 'management');
    expect(thrown?.outcome).toMatchObject({ status: 'error', error: expect.stringContaining(redacted), error_type: 'BackendCallError' });
    expect(thrown?.metadata.plugins).toEqual([
      // On the way out the inner plugin comes first; the message and the data's two texts were scanned.
      { plugin: 'pii_filter', action: 'redact', where: 'error', kinds: { email: 2 } },
      { plugin: 'secrets_detection', action: 'redact', where: 'error', kinds: { aws_access_key: 2, github_token: 3 } },
    ]);
    const failed = records.find((r) => r.target.capability_name === 'a_fail');
    expect(failed?.outcome).toMatchObject({ status: 'error', error: redacted, error_type: 'ToolError' });
    const blocked = records.find((r) => r.target.capability_name === 'b_throw');
    expect(blocked?.metadata.plugins).toEqual([expect.objectContaining({ action: 'block', where: 'error', reason: 'plugin_blocked', enforced: true })]);

    const counters = await pluginRecords(h);
    // a's secrets_detection: the error twice (client and management API), the isError result, the log message.
    expect(counters[0].counters.redactions).toBe(4);
    expect(counters[2].counters.blocks).toBe(2);

    const audit = readFileSync(join(h.dir, 'audit.jsonl'), 'utf8');
    const logs = h.logs.join('\n');
    for (const v of values) {
      expect(audit.includes(v), `${v} in the audit trail`).toBe(false);
      expect(logs.includes(v), `${v} in the log`).toBe(false);
    }
  });
});
