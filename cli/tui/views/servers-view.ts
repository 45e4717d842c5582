/**
 * 9 Servers: the servers file, the `--server` given and the local sessions.
 * Enter switches (a file entry becomes `active` in the file), `a` adds one
 * ("NAME URL [TOKEN]"), `d` removes one from the file (asks first).
 */
import type { PageContext, PageSpec } from '../page-spec.js';
import { seg } from '../text.js';
import { sameServer } from '../../servers/server-directory.js';

export const serversPage: PageSpec = {
  title: (ctx) => `Servers (${ctx.ui.servers.length})${ctx.tui.directory ? ` — ${ctx.tui.directory.path}` : ''}`,
  open: (ctx) => refresh(ctx),
  table: (ctx) => ({
    columns: [{ header: ' ' }, { header: 'NAME' }, { header: 'URL' }, { header: 'SOURCE' }, { header: 'TOKEN', flex: true }],
    rows: ctx.ui.servers.map((s, i) => ({
      key: String(i),
      cells: [sameServer(s, ctx.ui.active) ? seg('●', { color: 'green' }) : ' ', s.name, s.url, s.source, s.token ? 'yes' : '—'],
    })),
    empty: 'No servers.',
  }),
  bindings: () => [
    {
      keys: ['enter'],
      label: 'switch to it',
      needsRow: true,
      run: (ctx, row) => {
        const choice = ctx.ui.servers[Number(row?.key)];
        if (!choice) return;
        ctx.tui.switchServer(choice);
        if (choice.source !== 'file' || !ctx.tui.directory || ctx.ui.readOnly) return ctx.tui.flash(`Switched to ${choice.name} (${choice.url})`);
        try {
          ctx.tui.directory.setActive(choice.name);
          ctx.tui.flash(`Switched to ${choice.name} (${choice.url}); saved as active`);
        } catch (err) {
          ctx.tui.flash(`Switched to ${choice.name}, but the servers file was not saved: ${(err as Error).message}`, 'error');
        }
      },
    },
    {
      keys: ['a'],
      label: 'add a server',
      action: true,
      run: (ctx, row) => {
        const picked = ctx.ui.servers[Number(row?.key)];
        // A session or --server row offers itself to be saved.
        const initial = picked && picked.source !== 'file' ? `${picked.name.replace(/^session\//, '')} ${picked.url}` : '';
        ctx.tui.editField(ctx.page, 'add (NAME URL [TOKEN])> ', initial, 2);
      },
    },
    {
      keys: ['d'],
      label: 'remove from the file',
      action: true,
      needsRow: true,
      run: (ctx, row) => {
        const choice = ctx.ui.servers[Number(row?.key)];
        if (!choice) return;
        if (choice.source !== 'file') return ctx.tui.flash(`${choice.name} is not in the servers file`, 'error');
        ctx.tui.confirm(`Remove ${choice.name} (${choice.url}) from the servers file?`, () => {
          try {
            ctx.tui.directory?.remove(choice.name);
            ctx.tui.flash(`Removed ${choice.name}`);
          } catch (err) {
            ctx.tui.flash((err as Error).message, 'error');
          }
          refresh(ctx);
        });
      },
    },
  ],
  submit: (ctx, text) => {
    const [name, url, token, ...extra] = text.trim().split(/\s+/);
    if (!name || !url || extra.length) return ctx.tui.flash('Add a server as: NAME URL [TOKEN]', 'error');
    try {
      ctx.tui.directory?.add({ name, url, ...(token ? { token } : {}) });
      ctx.tui.flash(`Added ${name}`);
    } catch (err) {
      ctx.tui.flash((err as Error).message, 'error');
    }
    refresh(ctx);
  },
};

function refresh(ctx: PageContext): void {
  const dir = ctx.tui.directory;
  if (!dir) return;
  try {
    ctx.tui.setServers(dir.list(ctx.tui.activeServer));
  } catch (err) {
    ctx.tui.flash((err as Error).message, 'error');
  }
}
