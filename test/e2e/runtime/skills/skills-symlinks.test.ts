/**
 * Links in the skills directory are never followed (docs/skills.md). A link
 * loop (`ln -s .. skills/x/loop`) used to end the gateway with an unhandled
 * ELOOP from the directory watcher, and then keep it from starting. Here a
 * real `gateway server` with hot reload starts on a directory holding such a
 * loop, serves the other skills to a real MCP client, and stays up, still
 * watching, when more loops appear while it runs. On the skill manager: a
 * linked skill folder is not listed, and a linked SKILL.md makes its skill
 * broken with that reason instead of being read.
 */
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createLogger } from '../../../../runtime/observability/logging/logger.js';
import { Redactor } from '../../../../runtime/observability/logging/redactor.js';
import { fixtureCommand } from '../../../fixtures/spawn.js';
import { startGatewayCli, type GatewayProcess } from '../../../helpers/gateway-cli.js';
import { managementClient } from '../../../helpers/management-client.js';
import { copySkillFixtures, newSkillManager, writeSkill } from '../../../helpers/skill-fixtures.js';
import { waitFor } from '../../../helpers/wait.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const FIXTURE_SKILLS = ['diamond', 'legacy-echo', 'needs-missing', 'release-notes'];

/** `gateway server` with hot reload on `skills`, every skill enabled, and the fixture backend the workflows call. */
async function startServer(skills: string): Promise<{ gw: GatewayProcess; client: Client; api: ReturnType<typeof managementClient> }> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-skill-links-'));
  const fx = fixtureCommand(['--name', 'fx']);
  const config = {
    server: { host: '127.0.0.1', port: 0 },
    audit: { enabled: false },
    containers: { enabled: false },
    feature_flags: { hot_reload: true },
    controller: { reload_debounce_ms: 50 },
    skills: { directory: skills, default_status: 'enabled' },
    backends: { fx: { type: 'stdio', command: fx.command, args: fx.args } },
  };
  writeFileSync(join(dir, 'gateway.yaml'), stringify(config));
  const env = { ...process.env, GATEWAY_STATE_DIR: join(dir, 'state') };
  const gw = await startGatewayCli({ args: ['--config', join(dir, 'gateway.yaml'), '--log-format', 'json'], cwd: dir, env });
  cleanups.push(() => gw.stop());
  const client = new Client({ name: 'skill-links-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
  cleanups.push(() => client.close());
  return { gw, client, api: managementClient(gw.url) };
}

async function skillNames(api: ReturnType<typeof managementClient>): Promise<string[]> {
  const res = await api.get('/skills');
  expect(res.status).toBe(200);
  return res.body.skills.map((s: { name: string }) => s.name);
}

/** The other skills are served: a workflow runs against the backend, the files are listed, nothing under a link. */
async function expectServing(client: Client): Promise<void> {
  const tools = (await client.listTools()).tools.map((t) => t.name);
  expect(tools).toEqual(expect.arrayContaining(['diamond_combine', 'legacy-echo_shout']));
  expect(await client.callTool({ name: 'legacy-echo_shout', arguments: { text: 'hi' } })).toMatchObject({ content: [{ type: 'text', text: 'hi!' }] });
  const uris = (await client.listResources()).resources.map((r) => r.uri);
  expect(uris).toEqual(expect.arrayContaining(['skill://release-notes/SKILL.md', 'skill://diamond/manifest.json']));
  expect(uris.filter((u) => /\/loop\/|^skill:\/\/alias\//.test(u))).toEqual([]);
}

describe('a link loop in the skills directory', () => {
  it('the gateway starts on it and serves the other skills', async () => {
    const skills = copySkillFixtures();
    writeSkill(skills, 'x', { 'SKILL.md': '---\nname: x\ndescription: holds a link to its parent\n---\n' });
    symlinkSync('..', join(skills, 'x', 'loop'));
    symlinkSync(join(skills, 'diamond'), join(skills, 'alias'));

    const { gw, client, api } = await startServer(skills);
    expect(await skillNames(api)).toEqual([...FIXTURE_SKILLS, 'x']);
    await expectServing(client);
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain('skill://x/SKILL.md');
    expect(gw.child.exitCode).toBeNull();
    // Not followed at all: a watcher that followed the loop would meet ELOOP, even if it only logged it.
    expect(gw.stdout() + gw.stderr()).not.toMatch(/ELOOP/);
  });

  it('the gateway stays up and keeps watching when a loop appears while it runs', async () => {
    const skills = copySkillFixtures();
    const { gw, client, api } = await startServer(skills);
    expect(await skillNames(api)).toEqual(FIXTURE_SKILLS);

    // As an operator would: a new skill folder, then a link to its parent in it.
    writeSkill(skills, 'x', { 'SKILL.md': '---\nname: x\ndescription: holds a link to its parent\n---\n' });
    symlinkSync('..', join(skills, 'x', 'loop'));
    await waitFor(async () => (await skillNames(api)).includes('x'), 'the new skill x in GET /skills');
    // A skill added after the loop shows only if the watcher survived it and still reports changes.
    writeSkill(skills, 'late', { 'SKILL.md': '---\nname: late\ndescription: added after the loop\n---\n' });
    await waitFor(async () => (await skillNames(api)).includes('late'), 'the skill added after the loop in GET /skills');

    expect(gw.child.exitCode).toBeNull();
    await expectServing(client);
    expect(gw.stdout() + gw.stderr()).not.toMatch(/ELOOP/);
  });
});

describe('links in a skill folder are not followed', () => {
  it('the skills directory itself may be a link: it is watched through it', async () => {
    const real = copySkillFixtures();
    const linked = join(mkdtempSync(join(tmpdir(), 'gw-linked-dir-')), 'skills');
    symlinkSync(real, linked);
    const manager = newSkillManager({ directory: linked, watch: true, callStep: () => Promise.reject(new Error('no steps')), toolAvailable: () => true });
    cleanups.push(() => manager.stop());
    await manager.start();
    expect(manager.records().map((r) => r.name)).toEqual(FIXTURE_SKILLS);
    writeSkill(real, 'late', { 'SKILL.md': '---\nname: late\ndescription: added through the real path\n---\n' });
    await waitFor(() => manager.records().some((r) => r.name === 'late'), 'the new skill, seen through the linked directory');
    // Inside a skill folder too: each folder is watched, not only the top.
    writeSkill(real, 'release-notes', { 'SKILL.md': '---\nname: release-notes\ndescription: edited in place\n---\n' });
    await waitFor(() => manager.records().find((r) => r.name === 'release-notes')?.description === 'edited in place', 'the edit inside a skill folder');
  });

  it('a linked skill folder is not listed; a linked SKILL.md makes its skill broken, with the reason', async () => {
    const skills = copySkillFixtures();
    const outside = mkdtempSync(join(tmpdir(), 'gw-outside-'));
    writeFileSync(join(outside, 'SKILL.md'), '---\nname: linked\ndescription: read through a link\n---\n');
    writeSkill(skills, 'linked', { 'notes.md': 'the folder is real, its SKILL.md is a link' });
    symlinkSync(join(outside, 'SKILL.md'), join(skills, 'linked', 'SKILL.md'));
    symlinkSync(join(skills, 'release-notes'), join(skills, 'alias'));

    const logs: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        logs.push(String(chunk));
        cb();
      },
    });
    const manager = newSkillManager({
      directory: skills,
      logger: createLogger({ level: 'debug', destination: sink, redactor: new Redactor() }),
      callStep: () => Promise.reject(new Error('no steps in this test')),
      toolAvailable: () => true,
    });
    cleanups.push(() => manager.stop());
    await manager.start();
    expect(manager.records().map((r) => r.name)).toEqual(FIXTURE_SKILLS);
    expect(logs.join('')).toContain("skill 'linked' not loaded: SKILL.md is a symbolic link; links in a skill folder are not followed");
  });
});
