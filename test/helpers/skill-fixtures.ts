/**
 * Skills for tests: a temp copy of test/fixtures/skills (enabling writes the
 * state file), and a workflow step caller backed by a real fixture MCP server
 * in this process, whose tools it exposes as `fx_<tool>` (a backend named
 * `fx` under the prefix strategy).
 */
import { cpSync, mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createFixtureServer } from '../fixtures/fixture-server.js';
import { repoRoot } from '../fixtures/spawn.js';
import { ToolNotFoundError } from '../../schemas/errors.js';
import type { JsonObject } from '../../runtime/routing/caller.js';
import { SkillManager, type SkillManagerOptions, type StepCaller, type StepContext } from '../../runtime/skills/skill-manager.js';
import { silentLogger } from '../../runtime/observability/logging/logger.js';

export const SKILL_FIXTURES = join(repoRoot(), 'test', 'fixtures', 'skills');

/** A fresh copy of the fixture skills directory. */
export function copySkillFixtures(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'gw-skills-')), 'skills');
  cpSync(SKILL_FIXTURES, dir, { recursive: true });
  return dir;
}

/** Writes `files` (relative path → content) under `<dir>/<skill>/`. */
export function writeSkill(dir: string, skill: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, skill, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}

export interface FixtureToolCaller {
  client: Client;
  callStep: StepCaller;
  /** Every step call, in the order they started. */
  calls: Array<{ tool: string; args: JsonObject; ctx: StepContext }>;
  /** The exposed tool names (`fx_echo`, ...). */
  toolNames: Set<string>;
  /** Runs before each call is forwarded (to hold a step back, for instance). */
  before?: (tool: string, ctx: StepContext) => Promise<void>;
  close(): Promise<void>;
}

/** A real SDK Client connected in memory to the fixture server. */
export async function fixtureToolCaller(): Promise<FixtureToolCaller> {
  const server = createFixtureServer({ name: 'fx' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'skills-test', version: '1.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  const toolNames = new Set((await client.listTools()).tools.map((t) => `fx_${t.name}`));
  const caller: FixtureToolCaller = {
    client,
    calls: [],
    toolNames,
    callStep: async (tool, args, ctx) => {
      caller.calls.push({ tool, args, ctx });
      if (!toolNames.has(tool)) throw new ToolNotFoundError(tool);
      await caller.before?.(tool, ctx);
      return (await client.callTool({ name: tool.slice('fx_'.length), arguments: args }, undefined, { signal: ctx.signal })) as JsonObject;
    },
    async close() {
      await client.close();
      await server.close();
    },
  };
  return caller;
}

/** A skill manager on a fresh fixture copy, watch off, silent; not started. */
export function newSkillManager(opts: Partial<SkillManagerOptions> & Pick<SkillManagerOptions, 'callStep' | 'toolAvailable'>): SkillManager {
  return new SkillManager({
    directory: opts.directory ?? copySkillFixtures(),
    defaultStatus: 'disabled',
    watch: false,
    debounceMs: 50,
    logger: silentLogger(),
    ...opts,
  });
}
