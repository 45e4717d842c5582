/** 7 Skills: enable or disable one with `e` (or Space). */
import type { PageSpec } from '../page-spec.js';
import { line, seg, toneOf } from '../text.js';

export const skillsPage: PageSpec = {
  title: (ctx) => `Skills (${ctx.data.skills?.skills.length ?? 0})`,
  table: (ctx) => ({
    above: ctx.data.skillsError ? [line(seg(`Skills: ${ctx.data.skillsError}`, { color: 'yellow' }))] : undefined,
    columns: [
      { header: 'NAME' },
      { header: 'VERSION' },
      { header: 'STATUS' },
      { header: 'TOOLS' },
      { header: 'WORKFLOWS' },
      { header: 'MISSING' },
      { header: 'DESCRIPTION', flex: true },
    ],
    rows: (ctx.data.skills?.skills ?? []).map((s) => ({
      key: s.name,
      cells: [
        s.name,
        s.version,
        seg(s.status, { color: toneOf(s.status) }),
        String(s.tools),
        String(s.workflows),
        s.missing_tools.length ? seg(s.missing_tools.join(','), { color: 'yellow' }) : '—',
        s.description.split('\n')[0],
      ],
    })),
    empty: ctx.data.connecting ? 'Loading…' : 'No skills.',
  }),
  bindings: () => [
    {
      keys: ['e', 'space'],
      label: 'enable / disable',
      action: true,
      needsRow: true,
      run: (ctx, row) => {
        const skill = ctx.data.skills?.skills.find((s) => s.name === row?.key);
        if (!skill) return;
        const enable = skill.status !== 'enabled';
        ctx.tui.act(
          () => ctx.tui.client.setSkill(skill.name, enable),
          (r) => ({ text: `Skill ${r.name} ${r.action}`, level: r.ok ? 'info' : 'error' }),
        );
      },
    },
  ],
};
