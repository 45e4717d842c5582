/** Monitoring commands: status, health status, groups list, capabilities, sessions list, clients list. */
import { Command, Option } from 'clipanion';
import { ClientCommand, type Io } from './client-command.js';
import { clip, formatDuration, renderFields, renderTable } from '../output/table.js';
import { paintStatus } from '../output/colors.js';
import { count } from '../output/plural.js';
import { EXIT } from '../output/exit-codes.js';
import type { Capabilities } from '../client/api-types.js';
import { CAPABILITY_TYPES } from '../../schemas/api.js';
import { oneOf } from '../option-values.js';

export class StatusCommand extends ClientCommand {
  static override paths = [['status']];
  static override usage = Command.Usage({ category: 'Monitoring', description: 'Service, config, transport and feature flags (GET /status)' });

  async run(io: Io): Promise<number> {
    io.print(await io.client.status(), (s) => {
      const flags = Object.entries(s.feature_flags)
        .filter(([, on]) => on)
        .map(([k]) => k);
      return renderFields([
        ['Service', `${s.service.name} ${s.service.version} (${paintStatus(io.c, s.service.state)}, up ${formatDuration(s.service.uptime_seconds)})`],
        ['Started', s.service.started_at],
        ['Config', `${s.config.file_path} (${count(s.config.backend_count, 'backend')}, loaded ${s.config.loaded_at})`],
        ['Streamable HTTP', s.transport.streamable_http_url],
        ['SSE', s.transport.sse_url],
        ['Feature flags on', flags.join(', ') || 'none'],
      ]);
    });
    return EXIT.ok;
  }
}

export class HealthStatusCommand extends ClientCommand {
  static override paths = [['health', 'status']];
  static override usage = Command.Usage({ category: 'Monitoring', description: 'Aggregate health (GET /health)' });

  async run(io: Io): Promise<number> {
    io.print(await io.client.health(io.signal), (h) =>
      renderFields([
        ['Status', paintStatus(io.c, h.status)],
        ['Version', h.version],
        ['Uptime', formatDuration(h.uptime_seconds)],
        ['Backends', `${h.backends.healthy}/${h.backends.total} healthy, ${h.backends.connected} connected`],
      ]),
    );
    return EXIT.ok;
  }
}

export class GroupsListCommand extends ClientCommand {
  static override paths = [['groups', 'list']];
  static override usage = Command.Usage({ category: 'Monitoring', description: 'Backend groups (GET /groups)' });

  group = Option.String('--group', { description: 'Only this group' });

  async run(io: Io): Promise<number> {
    io.print(await io.client.groups(this.group), (g) =>
      renderTable(
        ['GROUP', 'COUNT', 'BACKENDS'],
        Object.entries(g.groups).map(([name, v]) => [name, String(v.count), v.servers.join(', ')]),
      ),
    );
    return EXIT.ok;
  }
}

export class CapabilitiesCommand extends ClientCommand {
  static override paths = [['capabilities']];
  static override usage = Command.Usage({ category: 'Monitoring', description: 'Tools, resources and prompts with their backends (GET /capabilities)' });

  type = Option.String('--type', { description: CAPABILITY_TYPES.join(', '), validator: oneOf(CAPABILITY_TYPES) });
  backend = Option.String('--backend', { description: 'Only this backend' });
  search = Option.String('--search', { description: 'Substring of a name or URI' });

  async run(io: Io): Promise<number> {
    const caps = await io.client.capabilities({ type: this.type, backend: this.backend, search: this.search });
    io.print(caps, capabilitiesTable);
    return EXIT.ok;
  }
}

function capabilitiesTable(caps: Capabilities): string {
  const rows = [
    ...caps.tools.map((t) => ['tool', t.name, t.backend, clip(t.description)]),
    ...caps.resources.map((r) => ['resource', r.uri, r.backend, r.name]),
    ...caps.prompts.map((p) => ['prompt', p.name, p.backend, clip(p.description)]),
  ];
  return renderTable(['KIND', 'NAME', 'BACKEND', 'DESCRIPTION'], rows);
}

export class SessionsListCommand extends ClientCommand {
  static override paths = [['sessions', 'list']];
  static override usage = Command.Usage({ category: 'Monitoring', description: 'MCP client sessions (GET /sessions)' });

  async run(io: Io): Promise<number> {
    io.print(await io.client.sessions(), (s) =>
      renderTable(
        ['ID', 'TRANSPORT', 'REVISION', 'USER', 'TOOLS', 'WAITING', 'AGE', 'IDLE', 'EXPIRED', 'REPLICA'],
        s.sessions.map((r) => [
          r.id,
          r.transport_type,
          r.protocol_version ?? '-',
          r.user_id ?? '-',
          String(r.tool_count),
          String(r.waiting_input),
          formatDuration(r.age_seconds),
          formatDuration(r.idle_seconds),
          String(r.expired),
          r.replica,
        ]),
      ),
    );
    return EXIT.ok;
  }
}

export class ClientsListCommand extends ClientCommand {
  static override paths = [['clients', 'list']];
  static override usage = Command.Usage({
    category: 'Monitoring',
    description: 'MCP clients seen without a session, protocol 2026-07-28 (GET /clients)',
  });

  async run(io: Io): Promise<number> {
    io.print(await io.client.clients(), (c) =>
      renderTable(
        ['CLIENT', 'VERSION', 'REVISION', 'USER', 'REQUESTS', 'WAITING', 'LAST SEEN', 'REPLICA'],
        c.clients.map((r) => [
          r.name,
          r.version ?? '-',
          r.protocol_version,
          r.user_id ?? '-',
          String(r.requests),
          String(r.waiting_input),
          r.last_seen,
          r.replica,
        ]),
      ),
    );
    return EXIT.ok;
  }
}
