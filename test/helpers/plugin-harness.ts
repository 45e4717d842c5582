/**
 * For the plugin tests: a real gateway with a real fixture backend `f`
 * (stdio, with the guardrail tools of test/fixtures/tools-guardrails.ts)
 * and a `plugins:` section, and small readers of what it answered,
 * audited and counted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { AuditRecord } from '../../schemas/audit-record.js';
import { startGateway, type Harness } from './gateway-harness.js';
import { stdioFixture } from '../fixtures/fixture-backend.js';
import { managementClient } from './management-client.js';

export const guardrailBackend = (extra: Record<string, unknown> = {}) => ({ ...stdioFixture(['--guardrail-tools']), ...extra });

export function startWithPlugins(plugins: unknown[], config: Record<string, unknown> = {}): Promise<Harness> {
  return startGateway({ backends: { f: guardrailBackend() }, plugins, ...config });
}

/** The text of a tool result's first content item. */
export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ text?: string }> }).content ?? [];
  return content[0]?.text ?? '';
}

export async function callText(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  return textOf(await client.callTool({ name, arguments: args }));
}

/** The JSON-RPC error a call failed with (the test fails when it did not fail). */
export { rpcError } from './rpc-error.js';

export async function auditRecords(h: Harness): Promise<AuditRecord[]> {
  await h.gateway.audit.flush();
  return readFileSync(join(h.dir, 'audit.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditRecord);
}

export interface PluginRecord {
  name: string;
  enabled: boolean;
  execution_mode: string;
  priority: number;
  module: string | null;
  error: string | null;
  counters: { invocations: number; blocks: number; redactions: number; cache_hits: number; retries: number; errors: number };
}

export async function pluginRecords(h: Harness): Promise<PluginRecord[]> {
  const res = await managementClient(h.url).get('/plugins');
  expect(res.status).toBe(200);
  return (res.body as { plugins: PluginRecord[] }).plugins;
}
