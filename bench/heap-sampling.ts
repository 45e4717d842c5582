/**
 * What a process allocates, sampled through its inspector (the DevTools
 * protocol's HeapProfiler over a WebSocket): `node --heap-prof` keeps only
 * what is still alive when the process exits, but garbage-collector time
 * follows what was allocated and dropped, so the sampling here counts the
 * objects the collector took as well. For bench/profile.ts `--alloc`.
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface HeapNode {
  callFrame: CallFrame;
  selfSize: number;
  children: HeapNode[];
}

/** One DevTools protocol connection: `send` resolves with the method's result. */
class Inspector {
  private seq = 0;
  private readonly waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener('message', (ev) => {
      const msg = JSON.parse(String(ev.data)) as { id?: number; result?: unknown; error?: { message: string } };
      const w = msg.id === undefined ? undefined : this.waiting.get(msg.id);
      if (!w) return;
      this.waiting.delete(msg.id!);
      if (msg.error) w.reject(new Error(msg.error.message));
      else w.resolve(msg.result);
    });
  }

  static async open(url: string): Promise<Inspector> {
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener('open', () => resolve(), { once: true });
      socket.addEventListener('error', () => reject(new Error(`cannot reach the inspector at ${url}`)), { once: true });
    });
    return new Inspector(socket);
  }

  send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = ++this.seq;
    this.socket.send(JSON.stringify({ id, method, params }));
    return new Promise<T>((resolve, reject) => this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject }));
  }

  close(): void {
    this.socket.close();
  }
}

/**
 * What is sampled: everything allocated (`all`), or only what outlived the
 * young generation (`promoted`: objects a scavenge collected are dropped).
 * A promoted object costs every scavenge until a full collection takes it,
 * and keeps what it points to alive as long: the second view finds it.
 */
export type AllocationView = 'all' | 'promoted';

/** Starts sampling allocations (one sample per `intervalBytes` on average); `stop` returns the sampled tree. */
export async function sampleAllocations(inspectorUrl: string, view: AllocationView, intervalBytes = 8192): Promise<{ stop(): Promise<HeapNode> }> {
  const inspector = await Inspector.open(inspectorUrl);
  await inspector.send('HeapProfiler.startSampling', {
    samplingInterval: intervalBytes,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: view === 'all',
  });
  return {
    async stop() {
      const { profile } = await inspector.send<{ profile: { head: HeapNode } }>('HeapProfiler.stopSampling');
      inspector.close();
      return profile.head;
    },
  };
}

const where = (cf: CallFrame): string => {
  let url = cf.url;
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) url = url.slice(nm + 'node_modules/'.length);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) url = url.slice(dist + '/dist/'.length);
  return `${cf.functionName || '(anonymous)'} ${url || '(native)'}:${cf.lineNumber + 1}`;
};

/** Bytes allocated per call: in all, and by the function that allocated them (self), largest first. */
export function summarizeAllocations(head: HeapNode, calls: number, view: AllocationView, top = 40): string {
  const self = new Map<string, number>();
  let total = 0;
  const walk = (n: HeapNode) => {
    if (n.selfSize > 0) {
      const k = where(n.callFrame);
      self.set(k, (self.get(k) ?? 0) + n.selfSize);
      total += n.selfSize;
    }
    for (const c of n.children) walk(c);
  };
  walk(head);
  const rows = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${(v / calls).toFixed(0).padStart(7)} B/call  ${k}`);
  const what = view === 'all' ? 'allocated (collected objects included)' : 'allocated and outlived the young generation';
  return [`${what}: ${(total / calls).toFixed(0)} B/call (sampled)`, '## by allocating function', ...rows].join('\n');
}
