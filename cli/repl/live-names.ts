/**
 * Names the REPL completes that only the server knows: backends, tools,
 * resource URIs, prompts, skills. Fetched once, then again after an event
 * says something changed (any event marks them stale; the next completion
 * fetches, so a burst of events costs one round of requests).
 */
import type { ManagementClient } from '../client/management-client.js';
import { terminalSafe } from '../output/terminal-safe.js';
import { isCallable } from '../client/tool-availability.js';

export interface NameSets {
  backends: string[];
  /** Tools clients can call (`tools call`): none held out by a filter, a conflict, its name or a quarantine. */
  tools: string[];
  /** Tools whose definitions wait for approval (`tools diff`, `tools approve`). */
  pendingTools: string[];
  resources: string[];
  prompts: string[];
  skills: string[];
}

const EMPTY: NameSets = { backends: [], tools: [], pendingTools: [], resources: [], prompts: [], skills: [] };

export class LiveNames {
  private names: NameSets = EMPTY;
  private stale = true;
  private loading?: Promise<void>;

  constructor(private readonly client: ManagementClient) {}

  get current(): NameSets {
    return this.names;
  }

  markStale(): void {
    this.stale = true;
  }

  /** Fresh names, waiting at most `waitMs` for the server (then the last known ones). */
  async fresh(waitMs = 1500): Promise<NameSets> {
    if (this.stale) {
      this.loading ??= this.load().finally(() => (this.loading = undefined));
      await Promise.race([this.loading, new Promise((r) => setTimeout(r, waitMs).unref())]);
    }
    return this.names;
  }

  private async load(): Promise<void> {
    this.stale = false;
    const [backends, caps, skills] = await Promise.allSettled([this.client.backends(), this.client.capabilities(), this.client.skills()]);
    if (backends.status === 'rejected' && caps.status === 'rejected') {
      this.stale = true; // unreachable: try again next time
      return;
    }
    this.names = {
      backends: backends.status === 'fulfilled' ? typable(backends.value.backends.map((b) => b.name)) : this.names.backends,
      tools: caps.status === 'fulfilled' ? typable(caps.value.tools.filter(isCallable).map((t) => t.name)) : this.names.tools,
      pendingTools: caps.status === 'fulfilled' ? typable(caps.value.tools.filter((t) => t.pending).map((t) => t.name)) : this.names.pendingTools,
      resources: caps.status === 'fulfilled' ? typable(caps.value.resources.map((r) => r.uri)) : this.names.resources,
      prompts: caps.status === 'fulfilled' ? typable(caps.value.prompts.map((p) => p.name)) : this.names.prompts,
      skills: skills.status === 'fulfilled' ? typable(skills.value.skills.map((s) => s.name)) : [],
    };
  }
}

/** Names a completion can offer: one holding a control character could not be typed, and readline would print it raw. */
function typable(names: string[]): string[] {
  return names.filter((name) => terminalSafe(name) === name);
}
