/**
 * End to end: secrets never reach any log destination of the real CLI, even
 * at debug level with -vv, in pretty and in JSON console output.
 *
 * Four secrets, each with a real path into the logs:
 *  - ENV_TOKEN: a literal credential in a stdio backend's `env` (API_TOKEN).
 *    The backend (leaky-server-main) prints its environment to stderr, which
 *    the gateway logs at debug (-vv).
 *  - HEADER_TOKEN: a literal `Authorization: Bearer …` header of an HTTP
 *    backend. That backend answers every request with a 500 whose body echoes
 *    the Authorization header it got, so the gateway's "failed to connect"
 *    error line carries it.
 *  - REF_SECRET: a `secret:GW_E2E_REF_SECRET` reference in the middle of a
 *    non-credential env value (a DSN), resolved from the gateway's environment
 *    and printed by the leaky backend.
 *  - MGMT_TOKEN: server.management.token, also handed to the leaky backend
 *    under a harmless name (MGMT_COPY), so only its registration as the
 *    management token can redact it.
 * Tool calls then put secrets into audit records (tool error text, thrown
 * error message, an unknown tool name).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { repoRoot } from '../../../fixtures/spawn.js';
import { runGatewayCliToExit, startGatewayCli } from '../../../helpers/gateway-cli.js';

const ENV_TOKEN = 'envtok-7f3a9c1e5b2d4f60a8e1';
const HEADER_TOKEN = 'hdrtok-91c2e4f6a8b0d2e4c6a9';
const REF_SECRET = 'refsec-3d5f7a9b1c2e4f6a8b0d';
const MGMT_TOKEN = 'mgmtok-5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e';
const SECRETS = { ENV_TOKEN, HEADER_TOKEN, REF_SECRET, MGMT_TOKEN };

const LEAKY_MAIN = join(repoRoot(), 'dist', 'test', 'fixtures', 'leaky-server-main.js');

/** An "HTTP backend" that rejects every request, echoing the credential it was sent. */
async function startEchoingRejecter(): Promise<{ url: string; server: Server; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    const auth = String(req.headers.authorization ?? '');
    seen.push(auth);
    req.resume();
    req.on('end', () => res.writeHead(500, { 'content-type': 'text/plain' }).end(`backend rejects Authorization=${auth}`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server, seen };
}

function writeConfig(dir: string, rejecterUrl: string): string {
  const config = {
    server: { host: '127.0.0.1', port: 0, management: { token: MGMT_TOKEN } },
    logging: { level: 'info', file: join(dir, 'logs', 'gateway.log') },
    audit: { file: join(dir, 'audit', 'audit.jsonl'), max_size_mb: 0.001, backup_count: 50 },
    health: { interval_s: 3600 },
    backends: {
      leaky: {
        type: 'stdio',
        command: process.execPath,
        args: [LEAKY_MAIN, '--transport', 'stdio', '--name', 'leaky'],
        env: {
          API_TOKEN: ENV_TOKEN,
          UPSTREAM_DSN: 'postgres://app:secret:GW_E2E_REF_SECRET@db.internal/app',
          MGMT_COPY: MGMT_TOKEN,
          LEAK_VARS: 'API_TOKEN,UPSTREAM_DSN,MGMT_COPY',
        },
      },
      rejecter: {
        type: 'streamable-http',
        url: rejecterUrl,
        headers: { Authorization: `Bearer ${HEADER_TOKEN}` },
        timeouts: { connect_s: 5 },
      },
    },
  };
  const path = join(dir, 'config.yaml');
  writeFileSync(path, stringify(config));
  return path;
}

function expectNoSecret(where: string, text: string): void {
  for (const [name, value] of Object.entries(SECRETS)) {
    // The message names the secret, not its value.
    expect(text.includes(value), `${name} appears in ${where}`).toBe(false);
  }
}

function readDir(dir: string): string {
  return readdirSync(dir)
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('');
}

interface RunOutput {
  stdout: string;
  stderr: string;
  logFile: string;
  audit: string;
  rejecterSaw: string[];
  exit: { code: number | null; killed: boolean };
}

/** One full run of the CLI: start, provoke leaks, make calls that put secrets into audit records, SIGTERM. */
async function runGateway(format: 'pretty' | 'json' | undefined): Promise<RunOutput> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-redact-'));
  const rejecter = await startEchoingRejecter();
  try {
    const configPath = writeConfig(dir, rejecter.url);
    const gw = await startGatewayCli({
      cwd: dir,
      args: ['--config', configPath, '--port', '0', '-vv', '--log-level', 'debug', ...(format ? ['--log-format', format] : [])],
      env: { ...process.env, GW_E2E_REF_SECRET: REF_SECRET, OTEL_EXPORTER_OTLP_ENDPOINT: '' },
    });
    const client = new Client({ name: 'redaction-e2e', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
      const echoed = await client.callTool({ name: 'leaky_echo', arguments: { text: 'hello' } });
      expect(echoed.isError).toBeFalsy();
      // Secrets that end up in audit records (outcome.error, target.capability_name).
      const failed = await client.callTool({ name: 'leaky_fail', arguments: { message: `upstream said token=${ENV_TOKEN}` } });
      expect(failed.isError).toBe(true);
      await expect(client.callTool({ name: 'leaky_throw', arguments: { message: `dsn ${REF_SECRET} refused` } })).rejects.toThrow();
      await expect(client.callTool({ name: `tool-${MGMT_TOKEN}`, arguments: {} })).rejects.toThrow();
    } finally {
      await client.close().catch(() => undefined);
    }
    const exit = await gw.stop();
    return {
      stdout: gw.stdout(),
      stderr: gw.stderr(),
      logFile: readFileSync(join(dir, 'logs', 'gateway.log'), 'utf8'),
      audit: readDir(join(dir, 'audit')),
      rejecterSaw: rejecter.seen,
      exit,
    };
  } finally {
    await new Promise((resolve) => rejecter.server.close(resolve));
  }
}

describe.each([
  ['pretty', 'pretty' as const],
  ['JSON (stdout not a terminal)', undefined],
])('redaction end to end, %s console output', (_label, format) => {
  let run: RunOutput;
  beforeAll(async () => {
    run = await runGateway(format);
  }, 60_000);

  it('really sent the header secret to the HTTP backend (the leak path is live)', () => {
    expect(run.rejecterSaw).toContain(`Bearer ${HEADER_TOKEN}`);
  });

  it('stops gracefully on SIGTERM', () => {
    expect(run.exit).toMatchObject({ code: 0, killed: false });
  });

  it('never prints a secret on the console (stdout or stderr)', () => {
    expectNoSecret('stdout', run.stdout);
    expectNoSecret('stderr', run.stderr);
  });

  it('never writes a secret to the log file', () => {
    expectNoSecret('logging.file', run.logFile);
  });

  it('never writes a secret to the audit file', () => {
    expectNoSecret('audit file', run.audit);
  });

  it('shows [REDACTED] where each secret was, in backend stderr (-vv) and in error lines', () => {
    for (const text of [run.stdout, run.logFile]) {
      expect(text).toContain('leaky: API_TOKEN=[REDACTED]');
      expect(text).toContain('leaky: UPSTREAM_DSN=postgres://app:[REDACTED]@db.internal/app');
      expect(text).toContain('leaky: MGMT_COPY=[REDACTED]');
      expect(text).toContain('Authorization=Bearer [REDACTED]');
    }
  });

  it('redacts secrets inside audit records, in the file and on the audit log level', () => {
    const records = run.audit
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { target: { capability_name: string }; outcome: { error: string | null } });
    expect(records).toHaveLength(4);
    const errors = records.map((r) => r.outcome.error);
    expect(errors).toContain('upstream said token=[REDACTED]');
    expect(errors.some((e) => e?.includes('dsn [REDACTED] refused'))).toBe(true);
    expect(records.map((r) => r.target.capability_name)).toContain('tool-[REDACTED]');
    const auditLogLines = run.logFile.split('\n').filter((l) => l.includes('"level":45'));
    expect(auditLogLines).toHaveLength(4);
    expect(auditLogLines.join('\n')).toContain('upstream said token=[REDACTED]');
  });

  it('writes JSON lines to the file and the console format that was asked for', () => {
    for (const line of run.logFile.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    const lines = run.stdout.split('\n').filter((l) => l.trim() !== '');
    // For a person the banner is text among the log lines; in JSON it is a JSON line like the others.
    const logLines = format === 'pretty' ? lines.filter((l) => !/^(MCP gateway|\s+(Streamable HTTP|SSE|Management API))/.test(l)) : lines;
    expect(logLines.length).toBeGreaterThan(5);
    // -v and up: connection progress.
    expect(run.stdout).toContain('connecting to leaky (attempt 1)');
    if (format === 'pretty') {
      // pino-pretty: "[time] LEVEL: message" then indented fields; the audit level by name.
      expect(logLines.some((l) => l.startsWith('{'))).toBe(false);
      expect(run.stdout).toMatch(/^\[[^\]]+\] DEBUG: leaky: API_TOKEN=\[REDACTED\]$/m);
      expect(run.stdout).toMatch(/^\[[^\]]+\] AUDIT: mcp_operation call_tool leaky\/leaky_fail error \d+\.\d ms ToolError: upstream said token=\[REDACTED\]$/m);
      // The record's remaining fields on one line, not a 20-line object dump.
      expect(run.stdout).toMatch(/^ {4}audit: event_id=[0-9a-f-]{36} session=\S+ client_ip=\S+ transport=streamable-http jsonrpc_id=\d+$/m);
    } else {
      const stderr = run.stderr.split('\n').filter((l) => l.trim() !== '');
      for (const line of [...logLines, ...stderr]) expect(() => JSON.parse(line), line).not.toThrow();
      expect(logLines.map((l) => JSON.parse(l) as { msg?: string }).filter((r) => r.msg === 'listening')).toHaveLength(1);
    }
  });
});

describe('secrets too short to redact are refused at config load', () => {
  it('names the offending key and the minimum length, never the value', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-short-'));
    const config = {
      server: { port: 0 },
      audit: { file: join(dir, 'audit.jsonl') },
      backends: {
        a: { type: 'stdio', command: 'true', env: { API_TOKEN: 'tiny01' } },
        b: { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer sh0rt' } },
      },
    };
    writeFileSync(join(dir, 'config.yaml'), stringify(config));
    const result = await runGatewayCliToExit({ cwd: dir, args: ['--config', join(dir, 'config.yaml')] });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('backends.a.env.API_TOKEN');
    expect(result.stderr).toContain('backends.b.headers.Authorization');
    expect(result.stderr).toMatch(/at least 8 characters/);
    expect(result.stderr).not.toContain('tiny01');
    expect(result.stderr).not.toContain('sh0rt');
  });

  it('names a short secret: reference by its name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-short-'));
    const config = {
      server: { port: 0 },
      audit: { file: join(dir, 'audit.jsonl') },
      backends: { a: { type: 'stdio', command: 'true', args: ['--key=secret:GW_E2E_SHORT'] } },
    };
    writeFileSync(join(dir, 'config.yaml'), stringify(config));
    const result = await runGatewayCliToExit({
      cwd: dir,
      args: ['--config', join(dir, 'config.yaml')],
      env: { ...process.env, GW_E2E_SHORT: 'abc' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Secret 'GW_E2E_SHORT'");
    expect(result.stderr).toMatch(/at least 8 characters/);
    expect(result.stderr).not.toMatch(/--key=abc\b/);
  });
});
