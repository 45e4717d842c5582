/**
 * A fuzz of `Authorization` headers on /mcp, over raw TCP so that any byte
 * can be sent: empty, huge, binary, many spaces, several headers, random
 * garbage and JWT look-alikes. Every answer is 400, 401 or 431 (never a 5xx,
 * never a dropped connection), and the gateway keeps serving: a good token
 * still works after each round. Against `local` tokens and against `jwt`
 * (whose verifier parses what it is given). The cases come from a seeded
 * generator, so a failure names a case that can be replayed.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { freePort } from '../../../helpers/ports.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';
import { signingKey, startJwtIssuer, type JwtIssuer } from '../../../fixtures/jwt-issuer.js';

const TOKEN = 'fuzz-local-token-0123456789';
const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
});

/** Sends one request with these raw Authorization header lines (already `Name: value`), returns the status (0: no answer). */
function rawStatus(port: number, authLines: Buffer[]): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const head = Buffer.concat(chunks).toString('latin1');
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0));
    });
    socket.setTimeout(10_000, () => socket.destroy());
    const head = [
      'POST /mcp HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      `Content-Length: ${Buffer.byteLength(BODY)}`,
      'Connection: close',
    ].join('\r\n');
    // Written, not ended: a client that half-closes its socket loses any answer that is not immediate (Node ends
    // the connection at the client's FIN), while `Connection: close` has the server close it once it has answered.
    socket.write(Buffer.concat([Buffer.from(`${head}\r\n`), ...authLines.flatMap((l) => [l, Buffer.from('\r\n')]), Buffer.from(`\r\n${BODY}`)]));
  });
}

/** mulberry32: small, seeded, good enough to pick bytes. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const auth = (value: string | Buffer) => Buffer.concat([Buffer.from('Authorization: '), Buffer.isBuffer(value) ? value : Buffer.from(value, 'latin1')]);
const b64url = (s: string) => Buffer.from(s).toString('base64url');

/** The named cases, then `count` generated ones. */
function cases(count: number, seed: number): Array<{ name: string; lines: Buffer[] }> {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  const bytes = (n: number, from = 0, to = 256) => Buffer.from(Array.from({ length: n }, () => from + Math.floor(next() * (to - from))));
  const named = [
    { name: 'empty', lines: [auth('')] },
    { name: 'only spaces', lines: [auth(' '.repeat(200))] },
    { name: 'Bearer and many spaces', lines: [auth(`Bearer${' '.repeat(5000)}x`)] },
    { name: 'Bearer, spaces, nothing', lines: [auth(`Bearer${' '.repeat(300)}`)] },
    { name: 'tabs', lines: [auth(`Bearer\t\t${TOKEN}x\t`)] },
    { name: 'huge token (60 KiB)', lines: [auth(`Bearer ${'A'.repeat(60 * 1024)}`)] },
    { name: 'just under the header limit', lines: [auth(`Bearer ${'A'.repeat(15 * 1024)}`)] },
    { name: 'binary', lines: [auth(Buffer.concat([Buffer.from('Bearer '), bytes(64)]))] },
    { name: 'high bytes only', lines: [auth(Buffer.concat([Buffer.from('Bearer '), bytes(64, 0x80, 0x100)]))] },
    { name: 'NUL', lines: [auth('Bearer abc\u0000def')] },
    { name: 'several Authorization headers', lines: [auth('Bearer one'), auth('Bearer two'), auth(`Bearer ${TOKEN}x`)] },
    { name: 'a hundred Authorization headers', lines: Array.from({ length: 100 }, (_, i) => auth(`Bearer t${i}`)) },
    { name: 'Basic', lines: [auth(`Basic ${Buffer.from('user:pass').toString('base64')}`)] },
    { name: 'lower-case bearer, wrong token', lines: [auth('bearer nope-nope-nope')] },
    { name: 'JWT look-alike with alg none', lines: [auth(`Bearer ${b64url('{"alg":"none"}')}.${b64url('{"sub":"x"}')}.`)] },
    { name: 'JWT look-alike, header not JSON', lines: [auth(`Bearer ${b64url('{{{')}.${b64url('x')}.${b64url('y')}`)] },
    { name: 'JWT look-alike, huge kid', lines: [auth(`Bearer ${b64url(JSON.stringify({ alg: 'RS256', kid: 'k'.repeat(8000) }))}.e30.c2ln`)] },
    { name: 'JWT look-alike, crit header', lines: [auth(`Bearer ${b64url('{"alg":"RS256","crit":["x"],"x":1}')}.e30.c2ln`)] },
    { name: 'padding only', lines: [auth('Bearer ====')] },
  ];
  const alphabets = ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/=', ' \t', '.=', '\u00e9\u00ff\u0080'];
  const generated = Array.from({ length: count }, (_, i) => {
    const kind = pick(['b64', 'mixed', 'bytes', 'jwtish'] as const);
    const n = Math.floor(next() ** 3 * 12_000);
    let value: Buffer;
    if (kind === 'bytes') value = Buffer.concat([Buffer.from(pick(['Bearer ', 'bearer  ', '', 'Bearer'])), bytes(n)]);
    else if (kind === 'jwtish') value = Buffer.from(`Bearer ${[0, 1, 2].map(() => b64url(bytes(Math.floor(next() * 200)).toString('latin1'))).join('.')}`);
    else {
      const alphabet = kind === 'b64' ? alphabets[0] : alphabets.join('');
      value = Buffer.from(`Bearer ${Array.from({ length: n }, () => pick([...alphabet])).join('')}`, 'latin1');
    }
    return { name: `generated #${i} (seed ${seed}, ${kind}, ${value.length} bytes)`, lines: [auth(value)] };
  });
  return [...named, ...generated];
}

async function fuzz(port: number, goodToken: () => Promise<string>, seed: number): Promise<void> {
  const answers = new Map<number, number>();
  for (const c of cases(120, seed)) {
    const status = await rawStatus(port, c.lines);
    expect([400, 401, 431], `${c.name}: HTTP ${status}`).toContain(status);
    answers.set(status, (answers.get(status) ?? 0) + 1);
  }
  // Each kind of refusal occurred (so the cases above reach the gateway's check, and Node's own limits).
  expect([...answers.keys()].sort()).toEqual([400, 401, 431]);
  // The gateway still serves.
  expect(await rawStatus(port, [auth(`Bearer ${await goodToken()}`)])).toBe(200);
}

describe('a fuzz of Authorization headers', () => {
  let local: Harness;
  let jwt: Harness;
  let idp: JwtIssuer;
  let mint: () => Promise<string>;

  beforeAll(async () => {
    const key = await signingKey('fuzz');
    idp = await startJwtIssuer([key]);
    const port = await freePort();
    const audience = `http://127.0.0.1:${port}/mcp`;
    mint = () => idp.mint(key, { sub: 'fuzzer', aud: audience });
    [local, jwt] = await Promise.all([
      startGateway({
        server: { host: '127.0.0.1', port: 0, management: { open: true } },
        backends: { fx: stdioFixture() },
        incoming_auth: { type: 'local', tokens: [{ name: 'fuzzer', token: TOKEN }] },
      }),
      startGateway({
        server: { host: '127.0.0.1', port, management: { open: true } },
        backends: { fx: stdioFixture() },
        incoming_auth: { type: 'jwt', issuer: idp.issuer, jwks_uri: idp.jwksUri, audience },
      }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([local?.close(), jwt?.close()]);
    await idp?.close();
  });

  it('local tokens: 400, 401 or 431, never a 5xx; the gateway keeps serving', async () => {
    await fuzz(Number(new URL(local.url).port), async () => TOKEN, 24);
  }, 120_000);

  it('jwt: 400, 401 or 431, never a 5xx; the gateway keeps serving', async () => {
    await fuzz(Number(new URL(jwt.url).port), mint, 2411);
  }, 120_000);
});
