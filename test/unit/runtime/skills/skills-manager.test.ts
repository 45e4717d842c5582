/**
 * The skill manager on the fixture skills directory: loading (SKILL.md only,
 * manifest only, both, broken), records, enable/disable with the state file,
 * the served catalog and its change events, resources, and workflows run
 * against a real fixture MCP server (diamond in parallel, isError stop,
 * missing tools, invalid inputs, recursion, cancellation).
 */
import { readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../runtime/observability/logging/logger.js';
import { SkillManager, type SkillChange, type SkillSettings } from '../../../../runtime/skills/skill-manager.js';
import { ResourceNotFoundError, SkillNotFoundError, ToolNotFoundError } from '../../../../schemas/errors.js';
import { copySkillFixtures, fixtureToolCaller, newSkillManager, writeSkill, type FixtureToolCaller } from '../../../helpers/skill-fixtures.js';
import { waitFor } from '../../../helpers/wait.js';
import { Redactor } from '../../../../runtime/observability/logging/redactor.js';

let fx: FixtureToolCaller;
const managers: SkillManager[] = [];

beforeAll(async () => {
  fx = await fixtureToolCaller();
});
afterAll(async () => {
  await fx.close();
});
afterEach(async () => {
  fx.calls.length = 0;
  fx.before = undefined;
  await Promise.all(managers.splice(0).map((m) => m.stop()));
});

interface Started {
  manager: SkillManager;
  dir: string;
  logs: Array<{ level: number; msg: string }>;
  changes: SkillChange[];
}

async function startManager(settings: Partial<SkillSettings> = {}, dir = copySkillFixtures()): Promise<Started> {
  const logs: Started['logs'] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
      cb();
    },
  });
  const manager: SkillManager = new SkillManager({
    directory: dir,
    defaultStatus: 'disabled',
    watch: false,
    debounceMs: 50,
    ...settings,
    logger: createLogger({ level: 'debug', destination: sink, redactor: new Redactor() }),
    callStep: (tool, args, ctx) => fx.callStep(tool, args, ctx),
    toolAvailable: (name): boolean => fx.toolNames.has(name) || manager.servesTool(name),
  });
  managers.push(manager);
  const changes: SkillChange[] = [];
  manager.onChange((c) => changes.push(c));
  await manager.start();
  return { manager, dir, logs, changes };
}

const text = (result: Record<string, unknown>) => (result.content as Array<{ text: string }>).map((c) => c.text);

describe('loading and records', () => {
  it('lists the valid skills with the spec fields, and the broken one nowhere', async () => {
    const { manager, logs } = await startManager();
    const records = manager.records();
    expect(records.map((r) => r.name)).toEqual(['diamond', 'legacy-echo', 'needs-missing', 'release-notes']);
    const byName = Object.fromEntries(records.map((r) => [r.name, r]));
    expect(byName['release-notes']).toEqual({
      name: 'release-notes',
      version: '1.0', // failsafe YAML: not the number 1
      description: 'Writes release notes from a list of merged changes.',
      status: 'disabled',
      tools: 0,
      workflows: 0,
      author: 'Docs Team',
      required_tools: [],
      missing_tools: [],
      workflow_errors: [],
    });
    expect(byName['legacy-echo']).toMatchObject({ version: '0.3.0', author: 'Legacy Team', tools: 1, workflows: 1, required_tools: ['fx_echo'] });
    // Both files: the front matter wins for the shared fields; the manifest brings the workflows.
    const diamond = byName.diamond;
    expect(diamond).toMatchObject({
      version: '2.0.0',
      author: 'Graph Team',
      description: 'Adds two numbers while echoing a text, in a diamond of steps.',
      tools: 2,
      workflows: 2,
      required_tools: ['fx_add', 'fx_echo', 'fx_fail'],
      missing_tools: [],
    });
    expect(diamond.workflow_errors.map((e) => e.workflow)).toEqual(['loop', 'early']);
    expect(diamond.workflow_errors[0].message).toBe('dependency cycle: a → b → a (each step depends on the next)');
    expect(diamond.workflow_errors[1].message).toBe("step 'b' uses {{steps.a.text}} but does not depend on 'a' (directly or through other steps)");
    expect(byName['needs-missing'].missing_tools).toEqual(['nowhere_tool']);

    const broken = logs.filter((l) => l.msg.includes("skill 'broken-front' not loaded"));
    expect(broken).toHaveLength(1);
    expect(broken[0].msg).toMatch(/SKILL\.md: front matter is not valid YAML/);
    await manager.rescan();
    await manager.rescan();
    expect(logs.filter((l) => l.msg.includes("skill 'broken-front' not loaded"))).toHaveLength(1);
    expect(logs.filter((l) => l.msg.includes("workflow 'loop' of skill 'diamond' is not served"))).toHaveLength(1);
  });

  it.each([
    [
      'name differs from the folder',
      { 'SKILL.md': '---\nname: other\ndescription: d\n---\n' },
      /the name 'other' in SKILL\.md does not match the folder name 'odd'/,
    ],
    ['no front matter', { 'SKILL.md': '# just markdown\n' }, /SKILL\.md: must start with YAML front matter/],
    ['front matter not closed', { 'SKILL.md': '---\nname: odd\n' }, /front matter is not closed/],
    ['missing description', { 'SKILL.md': '---\nname: odd\n---\n' }, /SKILL\.md front matter: description is required/],
    ['manifest not JSON', { 'manifest.json': '{ nope' }, /manifest\.json is not valid JSON/],
    [
      'manifest step without tool',
      { 'manifest.json': JSON.stringify({ name: 'odd', workflows: [{ name: 'w', steps: [{ id: 's' }] }] }) },
      /workflows\[0\]\.steps\[0\]\.tool is required/,
    ],
    ['neither file', { 'notes.txt': 'hello' }, /no SKILL\.md or manifest\.json/],
  ])('a folder with %s is not listed and the reason is logged', async (_what, files, reason) => {
    const dir = copySkillFixtures();
    writeSkill(dir, 'odd', files);
    const { manager, logs } = await startManager({}, dir);
    expect(manager.records().map((r) => r.name)).not.toContain('odd');
    expect(manager.records()).toHaveLength(4);
    const line = logs.find((l) => l.msg.startsWith("skill 'odd' not loaded"));
    expect(line?.msg).toMatch(reason);
  });

  it('an unknown skill is a SkillNotFoundError (404)', async () => {
    const { manager } = await startManager();
    await expect(manager.setStatus('nope', 'enabled')).rejects.toBeInstanceOf(SkillNotFoundError);
  });

  it('answers skills_unavailable (503) until started', async () => {
    const manager = newSkillManager({ callStep: fx.callStep, toolAvailable: () => true });
    expect(() => manager.records()).toThrow(expect.objectContaining({ code: 'skills_unavailable' }));
    await expect(manager.setStatus('diamond', 'enabled')).rejects.toMatchObject({ code: 'skills_unavailable' });
  });
});

describe('enable, disable and the served catalog', () => {
  it('serves workflows and files of enabled skills only, and tells listeners', async () => {
    const { manager, dir, changes } = await startManager();
    expect(manager.catalog()).toEqual({ tools: [], resources: [] });

    expect(await manager.setStatus('diamond', 'enabled')).toEqual({ name: 'diamond', action: 'enabled', ok: true });
    expect(changes).toEqual([{ tools: true, resources: true, updatedUris: [] }]);
    const { tools, resources } = manager.catalog();
    expect(tools.map((t) => t.name)).toEqual(['diamond_combine', 'diamond_guarded']);
    expect(tools[0]).toMatchObject({
      description: 'start, then left and right in parallel, then join',
      inputSchema: { type: 'object', required: ['text', 'a', 'b'] },
      outputSchema: { type: 'object', required: ['steps'] },
    });
    expect(resources).toEqual([
      {
        uri: 'skill://diamond/SKILL.md',
        name: 'diamond/SKILL.md',
        mimeType: 'text/markdown',
        size: expect.any(Number),
        description: expect.stringMatching(/diamond/),
      },
      { uri: 'skill://diamond/manifest.json', name: 'diamond/manifest.json', mimeType: 'application/json', size: expect.any(Number) },
    ]);
    expect(JSON.parse(readFileSync(join(dir, '.skills-state.json'), 'utf8'))).toEqual({ skills: { diamond: 'enabled' } });
    expect(manager.records().find((r) => r.name === 'diamond')?.status).toBe('enabled');

    // Same status again: nothing changes, nothing is announced.
    await manager.setStatus('diamond', 'enabled');
    expect(changes).toHaveLength(1);

    await manager.setStatus('diamond', 'disabled');
    expect(changes[1]).toEqual({ tools: true, resources: true, updatedUris: [] });
    expect(manager.catalog()).toEqual({ tools: [], resources: [] });
    await expect(manager.callTool('diamond_combine', {})).rejects.toBeInstanceOf(ToolNotFoundError);
    await expect(manager.readResource('skill://diamond/SKILL.md')).rejects.toBeInstanceOf(ResourceNotFoundError);
  });

  it('the state survives a restart; new skills follow default_status', async () => {
    const first = await startManager();
    await first.manager.setStatus('legacy-echo', 'enabled');
    await first.manager.setStatus('release-notes', 'disabled');
    await first.manager.stop();

    const second = await startManager({ defaultStatus: 'enabled' }, first.dir);
    const status = Object.fromEntries(second.manager.records().map((r) => [r.name, r.status]));
    expect(status).toEqual({ diamond: 'enabled', 'legacy-echo': 'enabled', 'needs-missing': 'enabled', 'release-notes': 'disabled' });
    expect(second.manager.catalog().tools.map((t) => t.name)).toEqual(['diamond_combine', 'diamond_guarded', 'legacy-echo_shout', 'needs-missing_try']);
  });

  it('a broken state file is logged and every skill follows default_status', async () => {
    const dir = copySkillFixtures();
    writeFileSync(join(dir, '.skills-state.json'), '{"skills": {"diamond": "maybe"}}');
    const { manager, logs } = await startManager({}, dir);
    expect(manager.records().every((r) => r.status === 'disabled')).toBe(true);
    expect(logs.some((l) => l.msg.includes('skill state file unreadable'))).toBe(true);
    await manager.setStatus('diamond', 'enabled');
    expect(JSON.parse(readFileSync(join(dir, '.skills-state.json'), 'utf8'))).toEqual({ skills: { diamond: 'enabled' } });
  });

  it('reads text files as text and binary files as base64 blobs', async () => {
    const dir = copySkillFixtures();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0xff]);
    writeSkill(dir, 'release-notes', { 'assets/logo.png': png, 'scripts/run.sh': '#!/bin/sh\necho hi\n', '.hidden': 'secret' });
    // A link could point anywhere on the host: links are never served.
    symlinkSync(join(dir, 'diamond', 'manifest.json'), join(dir, 'release-notes', 'linked.json'));
    const { manager } = await startManager({ defaultStatus: 'enabled' }, dir);
    const uris = manager.catalog().resources.filter((r) => r.uri.startsWith('skill://release-notes/'));
    expect(uris.map((r) => [r.uri, r.mimeType])).toEqual([
      ['skill://release-notes/SKILL.md', 'text/markdown'],
      ['skill://release-notes/assets/logo.png', 'image/png'],
      ['skill://release-notes/scripts/run.sh', 'application/x-sh'],
      ['skill://release-notes/templates/notes.md', 'text/markdown'],
    ]);
    const md = await manager.readResource('skill://release-notes/SKILL.md');
    expect(md).toEqual({
      contents: [{ uri: 'skill://release-notes/SKILL.md', mimeType: 'text/markdown', text: readFileSync(join(dir, 'release-notes', 'SKILL.md'), 'utf8') }],
    });
    const blob = await manager.readResource('skill://release-notes/assets/logo.png');
    expect(blob).toEqual({ contents: [{ uri: 'skill://release-notes/assets/logo.png', mimeType: 'image/png', blob: png.toString('base64') }] });
    await expect(manager.readResource('skill://release-notes/.hidden')).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(manager.readResource('skill://release-notes/../diamond/SKILL.md')).rejects.toBeInstanceOf(ResourceNotFoundError);
  });
});

describe('workflows against a real MCP server', () => {
  it('runs the diamond: independent steps in parallel, the join last, the result from the steps nothing depends on', async () => {
    const { manager } = await startManager({ defaultStatus: 'enabled' });
    // 'left' is held back until 'right' has started: run one after the other, this would never finish.
    fx.before = async (_tool, ctx) => {
      if (ctx.step === 'left') await waitFor(() => fx.calls.some((c) => c.ctx.step === 'right'), 'step right to start while left is running', 5000);
    };
    const result = await manager.callTool('diamond_combine', { text: 'hi', a: 2, b: 3 });
    expect(result).toEqual({
      content: [{ type: 'text', text: '5 and right saw hi' }],
      structuredContent: { steps: { start: 'hi', left: '5', right: 'right saw hi', join: '5 and right saw hi' } },
      isError: false,
    });
    const order = fx.calls.map((c) => c.ctx.step);
    expect(order[0]).toBe('start');
    expect(order.slice(1, 3).sort()).toEqual(['left', 'right']);
    expect(order[3]).toBe('join');
    // Whole-value placeholders keep their JSON type; each step names its skill, workflow and step.
    expect(fx.calls.find((c) => c.ctx.step === 'left')).toMatchObject({ tool: 'fx_add', args: { a: 2, b: 3 }, ctx: { skill: 'diamond', workflow: 'combine' } });
  });

  it('a step answering isError stops the workflow and names the step', async () => {
    const { manager } = await startManager({ defaultStatus: 'enabled' });
    const result = await manager.callTool('diamond_guarded', { text: 'input' });
    expect(result).toEqual({
      content: [{ type: 'text', text: "Workflow 'diamond_guarded' stopped at step 'boom' (tool 'fx_fail'): bad input" }],
      structuredContent: { steps: { first: 'first input', boom: 'bad input' }, failed_step: 'boom' },
      isError: true,
    });
    expect(fx.calls.map((c) => c.ctx.step)).toEqual(['first', 'boom']);
  });

  it('a step whose call fails stops the workflow too', async () => {
    const dir = copySkillFixtures();
    writeSkill(dir, 'gone', {
      'manifest.json': JSON.stringify({
        name: 'gone',
        workflows: [
          {
            name: 'w',
            steps: [
              { id: 'x', tool: 'fx_echo', arguments: { text: 'x' } },
              { id: 'y', tool: 'fx_throw', depends_on: ['x'] },
            ],
          },
        ],
      }),
    });
    const { manager } = await startManager({ defaultStatus: 'enabled' }, dir);
    const result = await manager.callTool('gone_w', {});
    expect(result.isError).toBe(true);
    expect(text(result)[0]).toBe("Workflow 'gone_w' stopped at step 'y' (tool 'fx_throw'): MCP error -32603: fx: thrown on purpose");
  });

  it('invalid inputs are refused before any step runs', async () => {
    const { manager } = await startManager({ defaultStatus: 'enabled' });
    const result = await manager.callTool('diamond_combine', { text: 'hi', a: 'two' });
    expect(result.isError).toBe(true);
    expect(text(result)[0]).toMatch(/^Invalid arguments for workflow 'diamond_combine': .*must have required property 'b'/);
    expect(text(result)[0]).toMatch(/\/a must be number/);
    expect(fx.calls).toHaveLength(0);
  });

  it('a workflow whose required tools are missing answers a clear error and calls nothing', async () => {
    const { manager } = await startManager({ defaultStatus: 'enabled' });
    const result = await manager.callTool('needs-missing_try', {});
    expect(result).toEqual({
      content: [
        { type: 'text', text: "Workflow 'needs-missing_try' cannot run: the gateway offers no tool 'nowhere_tool' (required by skill 'needs-missing')" },
      ],
      structuredContent: { steps: {}, missing_tools: ['nowhere_tool'] },
      isError: true,
    });
    expect(fx.calls).toHaveLength(0);
  });

  it('a workflow calling itself is stopped', async () => {
    const dir = copySkillFixtures();
    writeSkill(dir, 'selfish', {
      'manifest.json': JSON.stringify({ name: 'selfish', workflows: [{ name: 'again', steps: [{ id: 'me', tool: 'selfish_again' }] }] }),
    });
    const { manager } = await startManager({ defaultStatus: 'enabled' }, dir);
    // As the routing layer would: a workflow tool called by a step goes back to the manager.
    fx.before = undefined;
    const viaManager: SkillManager = newSkillManager({
      directory: dir,
      defaultStatus: 'enabled',
      callStep: (tool, args, ctx): Promise<Record<string, unknown>> => viaManager.callTool(tool, args, { signal: ctx.signal }),
      toolAvailable: (name): boolean => viaManager.servesTool(name),
    });
    managers.push(viaManager);
    await viaManager.start();
    const result = await viaManager.callTool('selfish_again', {});
    expect(result.isError).toBe(true);
    expect(text(result)[0]).toMatch(
      /stopped at step 'me' \(tool 'selfish_again'\): Workflow 'selfish_again' not started: .*cycle \(selfish_again → selfish_again\)/,
    );
    expect(manager.servesTool('selfish_again')).toBe(true);
  });

  it('cancelling the call cancels the running step and rejects', async () => {
    const dir = copySkillFixtures();
    writeSkill(dir, 'slowpoke', {
      'manifest.json': JSON.stringify({
        name: 'slowpoke',
        workflows: [
          {
            name: 'wait',
            steps: [
              { id: 'long', tool: 'fx_slow', arguments: { steps: 100, delay_ms: 100 } },
              { id: 'then', tool: 'fx_echo', arguments: { text: 'x' }, depends_on: ['long'] },
            ],
          },
        ],
      }),
    });
    const { manager } = await startManager({ defaultStatus: 'enabled' }, dir);
    const ac = new AbortController();
    const running = manager.callTool('slowpoke_wait', {}, { signal: ac.signal });
    await waitFor(() => fx.calls.length === 1, 'the slow step to start');
    ac.abort(new Error('client cancelled'));
    await expect(running).rejects.toThrow(/cancelled|abort/i);
    expect(fx.calls.map((c) => c.ctx.step)).toEqual(['long']);
  });
});

describe('hot reload of the directory', () => {
  it('adding, editing and removing a skill folder shows without restart', async () => {
    const { manager, dir, changes } = await startManager({ watch: true, defaultStatus: 'enabled' });
    const names = () => manager.records().map((r) => r.name);
    writeSkill(dir, 'fresh', {
      'SKILL.md': '---\nname: fresh\ndescription: first words\n---\nbody\n',
      'manifest.json': JSON.stringify({ name: 'fresh', workflows: [{ name: 'hello', steps: [{ id: 'a', tool: 'fx_echo', arguments: { text: 'hello' } }] }] }),
    });
    await waitFor(() => names().includes('fresh'), 'the new skill to be listed');
    await waitFor(() => changes.some((c) => c.tools), 'a tools change');
    expect(manager.catalog().tools.map((t) => t.name)).toContain('fresh_hello');
    expect(await manager.callTool('fresh_hello', {})).toMatchObject({ content: [{ type: 'text', text: 'hello' }], isError: false });

    const before = changes.length;
    writeSkill(dir, 'fresh', { 'SKILL.md': '---\nname: fresh\ndescription: second words\n---\nbody, longer now\n' });
    await waitFor(() => manager.records().find((r) => r.name === 'fresh')?.description === 'second words', 'the edit to show');
    await waitFor(() => changes.slice(before).some((c) => c.updatedUris.includes('skill://fresh/SKILL.md')), 'an update of SKILL.md');

    rmSync(join(dir, 'fresh'), { recursive: true });
    await waitFor(() => !names().includes('fresh'), 'the removed skill to go');
    expect(manager.servesTool('fresh_hello')).toBe(false);
    expect(manager.catalog().resources.some((r) => r.uri.startsWith('skill://fresh/'))).toBe(false);
  });
});
