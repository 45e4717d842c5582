/**
 * Skills through a real gateway: GET /skills and POST /skills/{name}/enable|
 * disable over HTTP, the state file across a restart, hot reload of the
 * directory, and a workflow whose steps go through the gateway's router to a
 * real stdio backend (each step audited as a tool call).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { managementClient, expectError, expectKeys } from '../../../helpers/management-client.js';
import { fixtureCommand } from '../../../fixtures/spawn.js';
import { copySkillFixtures, writeSkill } from '../../../helpers/skill-fixtures.js';
import { waitFor } from '../../../helpers/wait.js';

const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.close()));
});

async function gateway(extra: Record<string, unknown>): Promise<{ h: Harness; api: ReturnType<typeof managementClient> }> {
  const fx = fixtureCommand(['--name', 'fx']);
  const h = await startGateway({ backends: { fx: { type: 'stdio', command: fx.command, args: fx.args } }, ...extra });
  harnesses.push(h);
  return { h, api: managementClient(h.url) };
}

const RECORD_KEYS = ['name', 'version', 'description', 'status', 'tools', 'workflows', 'author', 'required_tools', 'missing_tools', 'workflow_errors'];

describe('skills over the management API', () => {
  it('lists skill records, enables and disables them, and keeps the choice across a restart', async () => {
    const dir = copySkillFixtures();
    const { h, api } = await gateway({ skills: { directory: dir } });
    const res = await api.get('/skills');
    expect(res.status).toBe(200);
    expectKeys(res.body, ['skills']);
    expect(res.body.skills.map((s: { name: string }) => s.name)).toEqual(['diamond', 'legacy-echo', 'needs-missing', 'release-notes']);
    for (const s of res.body.skills) expectKeys(s, RECORD_KEYS);
    const diamond = res.body.skills[0];
    expect(diamond).toMatchObject({ status: 'disabled', version: '2.0.0', tools: 2, workflows: 2, author: 'Graph Team', missing_tools: [] });
    expect(res.body.skills[2].missing_tools).toEqual(['nowhere_tool']);
    expect(h.logs.some((l) => l.includes("skill 'broken-front' not loaded"))).toBe(true);

    const enabled = await api.post('/skills/diamond/enable');
    expect(enabled.status).toBe(200);
    expect(enabled.body).toEqual({ name: 'diamond', action: 'enabled', ok: true });
    expect((await api.post('/skills/release-notes/disable')).body).toEqual({ name: 'release-notes', action: 'disabled', ok: true });
    expect(JSON.parse(readFileSync(join(dir, '.skills-state.json'), 'utf8'))).toEqual({ skills: { diamond: 'enabled', 'release-notes': 'disabled' } });
    expectError(await api.post('/skills/nope/enable'), 404, 'skill_not_found');
    expectError(await api.post('/skills/broken-front/enable'), 404, 'skill_not_found');

    await h.close();
    harnesses.splice(0);
    const again = await gateway({ skills: { directory: dir, default_status: 'enabled' } });
    const statuses = Object.fromEntries((await again.api.get('/skills')).body.skills.map((s: { name: string; status: string }) => [s.name, s.status]));
    expect(statuses).toEqual({ diamond: 'enabled', 'legacy-echo': 'enabled', 'needs-missing': 'enabled', 'release-notes': 'disabled' });
  });

  it('the default directory is skills/ beside the config file; a missing one means no skills', async () => {
    const { h, api } = await gateway({});
    expect((await api.get('/skills')).body).toEqual({ skills: [] });
    expect(h.gateway.skills.directory).toBe(join(h.dir, 'skills'));
    expect(existsSync(join(h.dir, 'skills'))).toBe(false);
  });

  it('with hot reload, a new skill folder shows without restart, and a reload can move the directory', async () => {
    const dir = copySkillFixtures();
    const { h, api } = await gateway({ skills: { directory: dir }, feature_flags: { hot_reload: true }, controller: { reload_debounce_ms: 50 } });
    writeSkill(dir, 'late', { 'SKILL.md': '---\nname: late\ndescription: arrived later\n---\n' });
    await waitFor(async () => (await api.get('/skills')).body.skills.some((s: { name: string }) => s.name === 'late'), 'the new skill in GET /skills');

    const other = copySkillFixtures();
    writeSkill(other, 'elsewhere', { 'SKILL.md': '---\nname: elsewhere\ndescription: in another directory\n---\n' });
    const fx = fixtureCommand(['--name', 'fx']);
    h.writeConfig({
      server: { host: '127.0.0.1', port: 0 },
      audit: { file: join(h.dir, 'audit.jsonl') },
      backends: { fx: { type: 'stdio', command: fx.command, args: fx.args } },
      skills: { directory: other },
      feature_flags: { hot_reload: true },
      controller: { reload_debounce_ms: 50 },
    });
    await waitFor(async () => (await api.get('/skills')).body.skills.some((s: { name: string }) => s.name === 'elsewhere'), 'the skills of the new directory');
    expect((await api.get('/skills')).body.skills.some((s: { name: string }) => s.name === 'late')).toBe(false);
  });
});

describe('workflows through the gateway router', () => {
  it('runs the diamond against the real backend, each step audited as a tool call', async () => {
    const dir = copySkillFixtures();
    const { h } = await gateway({ skills: { directory: dir, default_status: 'enabled' } });
    const result = await h.gateway.skills.callTool('diamond_combine', { text: 'hi', a: 2, b: 3 });
    expect(result).toEqual({
      content: [{ type: 'text', text: '5 and right saw hi' }],
      structuredContent: { steps: { start: 'hi', left: '5', right: 'right saw hi', join: '5 and right saw hi' } },
      isError: false,
    });
    const failed = await h.gateway.skills.callTool('diamond_guarded', { text: 'x' });
    expect(failed).toMatchObject({ isError: true, structuredContent: { failed_step: 'boom' } });

    const auditFile = join(h.dir, 'audit.jsonl');
    const records = await waitFor(() => {
      if (!existsSync(auditFile)) return undefined;
      const lines = readFileSync(auditFile, 'utf8').trim().split('\n').filter(Boolean);
      const parsed = lines.map((l) => JSON.parse(l) as { source: { session_id: string }; target: { capability_name: string; backend: string } });
      return parsed.length >= 6 ? parsed : undefined;
    }, 'six audit records (4 diamond steps, 2 guarded steps)');
    expect(records.map((r) => r.target.capability_name).sort()).toEqual(['fx_add', 'fx_echo', 'fx_echo', 'fx_echo', 'fx_echo', 'fx_fail']);
    expect(new Set(records.map((r) => r.source.session_id))).toEqual(new Set(['skills']));
    expect(new Set(records.map((r) => r.target.backend))).toEqual(new Set(['fx']));
  });
});
