/** What `gateway status` shows for each session: the record, its URL and uptime, and the health it reports. */
import { probeHealth, type Health } from './probe.js';
import { pruneStale, readSessions } from './session-files.js';
import { sessionManagementUrl, sessionUrl, type SessionRecord } from './session-record.js';

export interface SessionStatus extends SessionRecord {
  /** Where MCP clients connect (`<url>/mcp`). */
  url: string;
  /** Where the management API is (`<management_url>/manage/v1`): `url` unless it has a port of its own. */
  management_url: string;
  uptime_seconds: number;
  /** The aggregate health from /manage/v1/health, or `unreachable` when the process lives but does not answer. */
  health: Health['status'] | 'unreachable';
  backends: Health['backends'] | null;
}

/** Every running session with its health; stale files are removed and named in `pruned`. */
export async function sessionStatuses(env?: NodeJS.ProcessEnv, now = Date.now()): Promise<{ sessions: SessionStatus[]; pruned: string[] }> {
  const { live, pruned } = pruneStale(readSessions(env));
  const sessions = await Promise.all(
    live.map(async ({ record }): Promise<SessionStatus> => {
      const url = sessionUrl(record);
      const managementUrl = sessionManagementUrl(record);
      const health = await probeHealth(managementUrl);
      return {
        ...record,
        url,
        management_url: managementUrl,
        uptime_seconds: Math.max(0, (now - Date.parse(record.started_at)) / 1000),
        health: health?.status ?? 'unreachable',
        backends: health?.backends ?? null,
      };
    }),
  );
  return { sessions, pruned };
}
