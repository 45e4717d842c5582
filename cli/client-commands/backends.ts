/** Backend commands: backends list | show | reconnect, reauth, revoke. */
import { Command, Option } from 'clipanion';
import { ClientCommand, type Io } from './client-command.js';
import { renderFields, renderTable } from '../output/table.js';
import { paintStatus } from '../output/colors.js';
import { count } from '../output/plural.js';
import { EXIT } from '../output/exit-codes.js';
import { CommandFailure } from '../output/report-error.js';
import { secondsValue } from '../option-values.js';
import type { BackendRecord } from '../client/api-types.js';
import { lostConflicts } from '../client/tool-availability.js';
import { awaitReauth } from './reauth-flow.js';

export class BackendsListCommand extends ClientCommand {
  static override paths = [['backends', 'list']];
  static override usage = Command.Usage({ category: 'Backends', description: 'Backends with phase, state, health and MCP revision (GET /backends)' });

  async run(io: Io): Promise<number> {
    io.print(await io.client.backends(), (b) =>
      renderTable(
        ['NAME', 'TYPE', 'GROUP', 'PHASE', 'STATE', 'HEALTH', 'PROTOCOL', 'TOOLS', 'RESOURCES', 'PROMPTS', 'ERROR'],
        b.backends.map((r) => [
          r.name,
          r.type,
          r.group,
          paintStatus(io.c, r.phase),
          paintStatus(io.c, r.state),
          paintStatus(io.c, r.health.status),
          r.protocol_version ?? '-',
          String(r.capabilities.tools),
          String(r.capabilities.resources),
          String(r.capabilities.prompts),
          r.error ?? '',
        ]),
      ),
    );
    return EXIT.ok;
  }
}

export class BackendsShowCommand extends ClientCommand {
  static override paths = [['backends', 'show']];
  static override usage = Command.Usage({ category: 'Backends', description: "One backend's record with its conditions" });

  name = Option.String();

  async run(io: Io): Promise<number> {
    const { backends } = await io.client.backends();
    const record = backends.find((b) => b.name === this.name);
    if (!record) throw new CommandFailure(`No backend named "${this.name}". Backends: ${backends.map((b) => b.name).join(', ') || 'none'}`);
    io.print(record, (r) => describeBackend(io, r));
    return EXIT.ok;
  }
}

function describeBackend(io: Io, r: BackendRecord): string {
  const health = r.health.latency_ms === null ? r.health.status : `${r.health.status} (${r.health.latency_ms} ms)`;
  const fields = renderFields([
    ['Name', r.name],
    ['Type', r.type],
    ['Group', r.group],
    ['Phase', paintStatus(io.c, r.phase)],
    ['State', paintStatus(io.c, r.state)],
    ['Health', paintStatus(io.c, health)],
    ['Last check', r.health.last_check ?? '-'],
    ['Protocol', r.protocol_version ?? '-'],
    ['Error', r.error ?? '-'],
    ['Capabilities', [count(r.capabilities.tools, 'tool'), count(r.capabilities.resources, 'resource'), count(r.capabilities.prompts, 'prompt')].join(', ')],
    ['Quarantined', r.quarantined_tools ? io.c.red(`${count(r.quarantined_tools, 'tool')} (gateway-client tools pending)`) : '-'],
    ['Conflicts', lostConflicts(r).join('; ') || '-'],
    [
      'Labels',
      Object.entries(r.labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ') || '-',
    ],
  ]);
  const conditions = renderTable(
    ['TYPE', 'STATUS', 'REASON', 'LAST TRANSITION', 'MESSAGE'],
    r.conditions.map((c) => [c.type, String(c.status), c.reason, c.last_transition, c.message]),
  );
  return `${fields}\nConditions:\n${conditions.trimEnd().replace(/^/gm, '  ')}\n`;
}

export class BackendsReconnectCommand extends ClientCommand {
  static override paths = [['backends', 'reconnect']];
  static override usage = Command.Usage({ category: 'Backends', description: 'Reconnect a backend and wait for the attempt (POST /reconnect/{name})' });

  name = Option.String();

  async run(io: Io): Promise<number> {
    const result = await io.client.reconnect(this.name);
    io.print(result, (r) => (r.reconnected ? `Reconnected ${r.name}\n` : ''));
    if (result.reconnected) return EXIT.ok;
    if (io.format === 'table') io.notice(result, (r) => `${io.c.red('Reconnect failed:')} ${r.error ?? 'unknown error'}\n`);
    return EXIT.failure;
  }
}

export class ReauthCommand extends ClientCommand {
  static override paths = [['reauth']];
  static override usage = Command.Usage({
    category: 'Backends',
    description: 'Re-authenticate a backend, or with --user sign a user in to a backend that acts for each user (POST /reauth/{name}[?user=ID])',
    details:
      'Prints the authorization URL, opens a browser when there is a display (unless --no-browser), and waits until the gateway reports `reauthenticated` or `reauth_failed` for the backend (and that user).',
  });

  name = Option.String();
  user = Option.String('--user', { description: 'The user who signs in (a backend with auth.on_behalf_of.type: user_oauth)' });
  browser = Option.Boolean('--browser', true, { description: '--no-browser: only print the URL' });
  timeout = Option.String('--timeout', '300', { description: 'Seconds to wait for the sign-in (default 300)', validator: secondsValue() });

  async run(io: Io): Promise<number> {
    return awaitReauth(io, this.name, { openBrowser: this.browser, timeoutMs: this.timeout * 1000, user: this.user });
  }
}

export class RevokeCommand extends ClientCommand {
  static override paths = [['revoke']];
  static override usage = Command.Usage({
    category: 'Backends',
    description: "Forget a user's sign-in to a backend that acts for each user (DELETE /backends/{name}/users/{id}/token)",
    details: "The user's next call to the backend fails with the sign-in URL again. Exit 1 when the user held no token.",
  });

  name = Option.String();
  user = Option.String('--user', { required: true, description: 'The user whose tokens are forgotten' });

  async run(io: Io): Promise<number> {
    await io.client.revokeUserToken(this.name, this.user);
    const done = { name: this.name, user: this.user, revoked: true };
    io.print(done, (d) => `${io.c.green('✓')} ${d.user}'s sign-in to ${d.name} is revoked\n`);
    return EXIT.ok;
  }
}
