/** `r` reconnect, `a` re-authenticate and `l` log of a backend: the same keys on its row and on its page. */
import type { Binding, PageContext } from '../page-spec.js';
import { line, seg, textLines } from '../text.js';

export function backendBindings(nameOf: (ctx: PageContext, rowKey: string | undefined) => string | undefined, needsRow: boolean): Binding[] {
  const withName = (run: (ctx: PageContext, name: string) => void) => (ctx: PageContext, row: { key: string } | undefined) => {
    const name = nameOf(ctx, row?.key);
    if (name) run(ctx, name);
  };
  return [
    {
      keys: ['r'],
      label: 'reconnect',
      action: true,
      needsRow,
      run: withName((ctx, name) => {
        ctx.tui.flash(`Reconnecting ${name}…`);
        ctx.tui.act(
          () => ctx.tui.client.reconnect(name),
          (r) => (r.reconnected ? { text: `Reconnected ${name}` } : { text: `Reconnect of ${name} failed: ${r.error ?? 'unknown error'}`, level: 'error' }),
        );
      }),
    },
    {
      keys: ['a'],
      label: 're-authenticate',
      action: true,
      needsRow,
      run: withName((ctx, name) =>
        ctx.tui.act(
          () => ctx.tui.client.reauth(name),
          (r) => {
            if (r.error) return { text: `Re-authentication of ${name} failed: ${r.error}`, level: 'error' };
            if (r.authorization_url) {
              ctx.tui.showMessage(`Authorize ${name}`, [
                line('Open this address in a browser to authorize the gateway:'),
                [],
                ...textLines(r.authorization_url, Math.max(20, ctx.width - 6), { color: 'cyan' }),
                [],
                line(seg('The Events view shows `reauthenticated` once it is done.', { dim: true })),
              ]);
              return;
            }
            return { text: r.reauth_initiated ? `Re-authentication of ${name} started` : `Re-authentication of ${name} not started` };
          },
        ),
      ),
    },
    { keys: ['l'], label: 'events and stderr', needsRow, run: withName((ctx, name) => ctx.tui.push('backend-log', name)) },
  ];
}
