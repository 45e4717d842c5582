/**
 * Starts a real gateway in-process on a random loopback port from a config
 * object, and connects real SDK clients to it over HTTP.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { stringify } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { Gateway, type GatewayOptions } from '../../app/gateway.js';
import { createLogger } from '../../runtime/observability/logging/logger.js';
import { Redactor } from '../../runtime/observability/logging/redactor.js';
import type { EventRecord } from '../../schemas/records.js';
import { OrderedDeliveryTransport } from '../../runtime/transports/ordered-delivery.js';

export interface Harness {
  gateway: Gateway;
  url: string;
  dir: string;
  configPath: string;
  /** Every log line the gateway wrote (JSON). */
  logs: string[];
  /** Rewrites the config file (for hot reload tests). */
  writeConfig(config: Record<string, unknown>): void;
  connect(opts?: { transport?: 'streamable-http' | 'sse'; capabilities?: ClientCapabilities }): Promise<Client>;
  /** Resolves with the first event (past or future) matching the predicate. */
  waitForEvent(predicate: (e: EventRecord) => boolean, timeoutMs?: number): Promise<EventRecord>;
  close(): Promise<void>;
}

/** Test defaults: fast health checks off unless asked, audit into the temp dir. `files`: written beside the config first (path → content). */
export async function startGateway(config: Record<string, unknown>, opts: GatewayOptions & { files?: Record<string, string> } = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-test-'));
  const configPath = join(dir, 'config.yaml');
  const { files = {}, ...gatewayOpts } = opts;
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  const withDefaults = {
    server: { host: '127.0.0.1', port: 0 },
    ...config,
    // Audit settings are merged, so a test can turn one on without losing the temp-dir file.
    audit: { file: join(dir, 'audit.jsonl'), ...(config.audit as Record<string, unknown> | undefined) },
    // Bare processes unless a test asks for containers: a Podman socket on a developer's machine must not change other tests.
    containers: { enabled: false, ...(config.containers as Record<string, unknown> | undefined) },
  };
  const writeConfig = (c: Record<string, unknown>) => writeFileSync(configPath, stringify(c));
  writeConfig(withDefaults);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  // The gateway's own redactor, shared with the logger the test captures.
  const redactor = opts.redactor ?? new Redactor();
  const logger = opts.logger ?? createLogger({ level: opts.logLevel ?? 'debug', destination: sink, redactor });
  // Each gateway its own pins unless a test shares them (a restart): backends of other tests share names.
  const gateway = await Gateway.start({ configPath, pinsFile: join(dir, 'pins.json'), ...gatewayOpts, logger, redactor });
  const clients: Client[] = [];

  return {
    gateway,
    url: gateway.url,
    dir,
    configPath,
    logs,
    writeConfig,
    async connect({ transport = 'streamable-http', capabilities = {} } = {}) {
      const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities });
      const t = transport === 'sse' ? new SSEClientTransport(new URL(`${gateway.url}/sse`)) : new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`));
      // The SDK client can drop a progress notification read in the same chunk as its result (a race in the
      // SDK's own Protocol, on the client's side of the wire); wrapped as the gateway wraps its backends, the
      // tests see what the gateway sent. test/e2e/api/mcp/notification-order.test.ts checks the wire order itself.
      await client.connect(new OrderedDeliveryTransport(t));
      clients.push(client);
      return client;
    },
    waitForEvent(predicate, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const past = gateway.events.list().find(predicate);
        if (past) return resolve(past);
        const timer = setTimeout(() => {
          unsubscribe();
          reject(new Error(`no matching event within ${timeoutMs} ms; last events: ${JSON.stringify(gateway.events.list({ limit: 8 }))}`));
        }, timeoutMs);
        const unsubscribe = gateway.events.subscribe((e) => {
          if (!predicate(e)) return;
          clearTimeout(timer);
          unsubscribe();
          resolve(e);
        });
      });
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await gateway.shutdown(2);
    },
  };
}
