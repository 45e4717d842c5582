/**
 * gateway-client never presents a tool clients cannot call as callable:
 * `tools list` says why each such tool is hidden (a name another backend
 * keeps, an invalid name, a quarantine, a filter), the REPL does not offer
 * them to `tools call`, and a backend that lost a name conflict names the
 * winner, in GET /backends and in `backends show`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_BIN, clientJson, runBin } from '../../helpers/cli-run.js';
import type { Harness } from '../../helpers/gateway-harness.js';
import { startHiddenToolsGateway } from '../../helpers/hidden-tools-gateway.js';
import { managementClient } from '../../helpers/management-client.js';
import { waitFor } from '../../helpers/wait.js';
import { LiveNames } from '../../../cli/repl/live-names.js';
import { ManagementClient } from '../../../cli/client/management-client.js';

let h: Harness;
beforeAll(async () => {
  h = await startHiddenToolsGateway();
}, 60_000);
afterAll(async () => h?.close());

const table = async (args: string[]) => {
  const r = await runBin(CLIENT_BIN, ['-s', h.url, '-o', 'table', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};

describe('tools clients cannot call, in gateway-client', { timeout: 60_000 }, () => {
  it('tools list marks each with why in HIDDEN; the callable ones have nothing there', async () => {
    const out = await table(['tools', 'list']);
    expect(out).toMatch(/^NAME\s+BACKEND\s+ORIGINAL\s+HIDDEN\s+PENDING\s+DESCRIPTION\s*$/m);
    // Without an ORIGINAL (nothing is renamed), HIDDEN follows BACKEND.
    expect(out).toMatch(/^echo\s+fx\s+Returns its input/m);
    expect(out).toMatch(/^echo\s+fy\s+fx keeps the name\s+Returns its input/m);
    expect(out).toMatch(/^add\s+fy\s+fx keeps the name\s+Adds two numbers/m);
    expect(out).toMatch(/^bad name\s+fx\s+invalid name\s+Extra tool bad name of fx/m);
    expect(out).toMatch(/^leaky\s+fy\s+quarantined\s+suspicious\s+Reads a file/m);
    expect(out).toMatch(/^lookup\s+fy\s+Looks a word up/m);
    // The JSON is the API's own answer, where each carries its reason.
    const { tools } = await clientJson(h.url, ['tools', 'list']);
    const entry = (backend: string, name: string) => tools.find((t: { backend: string; name: string }) => t.backend === backend && t.name === name);
    expect(entry('fy', 'echo')).toMatchObject({ hidden_by: 'fx' });
    expect(entry('fx', 'bad name').name_error).toMatch(/space/);
    expect(entry('fy', 'leaky')).toMatchObject({ pending: 'suspicious', quarantined: true });
  });

  it('the REPL offers only callable tools to tools call, and every waiting one to tools approve', async () => {
    const names = await new LiveNames(new ManagementClient({ baseUrl: h.url })).fresh(30_000);
    expect(names.tools).toEqual(expect.arrayContaining(['echo', 'add', 'lookup']));
    expect(names.tools).not.toContain('leaky');
    expect(names.tools).not.toContain('bad name');
    expect(names.tools.filter((n) => n === 'echo')).toHaveLength(1);
    expect(names.pendingTools).toEqual(['leaky']);
  });

  it('GET /backends and backends show name the backend that won each name', async () => {
    const { body } = await managementClient(h.url).get('/backends');
    const fy = body.backends.find((b: { name: string }) => b.name === 'fy');
    const fx = body.backends.find((b: { name: string }) => b.name === 'fx');
    expect(fx.conflicts).toEqual([]);
    expect(fy.conflicts).toEqual(
      expect.arrayContaining([
        { kind: 'tool', name: 'echo', winner: 'fx' },
        { kind: 'tool', name: 'add', winner: 'fx' },
        { kind: 'prompt', name: 'greet', winner: 'fx' },
      ]),
    );
    expect(fy.conflicts.map((c: { name: string }) => c.name)).not.toContain('lookup');
    expect(await clientJson(h.url, ['backends', 'show', 'fy'])).toMatchObject({ conflicts: fy.conflicts });
    const shown = await table(['backends', 'show', 'fy']);
    expect(shown, shown).toMatch(/^Conflicts:\s+fx keeps tools echo, add, .* and prompt greet$/m);
    expect(await table(['backends', 'show', 'fx'])).toMatch(/^Conflicts:\s+-$/m);
  });

  it('under conflict strategy error the backend left out names the winner too', async () => {
    const config = h.gateway.controller.config;
    h.writeConfig({ ...structuredClone(config), conflict_resolution: { strategy: 'error' } });
    await h.gateway.controller.reload();
    const fy = await waitFor(() => {
      const record = h.gateway.controller.backendRecord('fy');
      return record?.phase === 'Failed' ? record : undefined;
    }, 'fy to be left out');
    expect(fy.conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: false, reason: 'NameConflict' });
    expect(fy.conflicts).toEqual(expect.arrayContaining([{ kind: 'tool', name: 'echo', winner: 'fx' }]));
  });
});
