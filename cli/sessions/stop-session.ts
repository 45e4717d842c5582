/**
 * Stopping a session by its pid: SIGTERM and a graceful wait, then SIGKILL;
 * or SIGKILL at once (`--force`). Waiting watches /proc, so a killed server
 * that nobody reaps (a zombie) counts as stopped. A killed server's stdio
 * backends are killed after it (./backend-process-groups.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { processRuns } from './process-state.js';
import { backendGroupsOf, killGroups } from './backend-process-groups.js';
import { removeIfUnchanged, type FoundSession } from './session-files.js';

export interface StopOutcome {
  name: string;
  pid: number;
  /** How it ended: it stopped on SIGTERM, it was killed after the timeout, or killed at once. */
  how: 'terminated' | 'killed-after-timeout' | 'killed';
}

export async function stopSession(s: FoundSession, opts: { force: boolean; timeoutMs: number }): Promise<StopOutcome> {
  const { pid, name } = s.record;
  const startedAt = new Date(s.record.started_at);
  const runs = () => processRuns(pid, startedAt);
  let how: StopOutcome['how'] = 'killed';
  if (!opts.force) {
    signal(pid, 'SIGTERM');
    how = (await waitUntil(() => !runs(), opts.timeoutMs)) ? 'terminated' : 'killed-after-timeout';
  }
  if (how !== 'terminated') {
    // Read before the kill: afterwards its backends are init's children, no longer known as its.
    const backends = backendGroupsOf(pid);
    signal(pid, 'SIGKILL');
    await waitUntil(() => !runs(), 10_000);
    killGroups(backends);
  }
  // A graceful stop removes its own file, backends and containers; a killed server can do none of that.
  if (how !== 'terminated') await removeContainersOf(s);
  removeIfUnchanged(s);
  return { name, pid, how };
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

async function waitUntil(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
  return true;
}

/**
 * The backend containers a killed server left (selected by its owner label,
 * never by name). Quiet when there is no container runtime: then there are
 * no containers either.
 */
async function removeContainersOf(s: FoundSession): Promise<void> {
  const [{ connectRuntime }, { cleanManaged }, { configuredSocket }] = await Promise.all([
    import('../../runtime/containers/container-runtime.js'),
    import('../../runtime/containers/cleanup.js'),
    import('../containers/configured-socket.js'),
  ]);
  let socket: string | undefined;
  try {
    socket = configuredSocket(s.record.config);
  } catch {
    socket = undefined; // no readable config: the socket is discovered
  }
  const found = await connectRuntime(socket);
  if (found.runtime) await cleanManaged(found.runtime, { ownerPid: s.record.pid });
}
