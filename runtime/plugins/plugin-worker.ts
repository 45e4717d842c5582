/**
 * The worker thread a plugin of your own runs in, seen from the gateway: it
 * is started (the module imported, `on_load` run) within the plugin's
 * `timeout_s`, sent one message per hook call over a MessageChannel and
 * answers with one, and is ended when the gateway stops waiting for it (a
 * hook that took too long, a load that never finished): a hook that loops
 * forever stops its worker, never the gateway. An ended worker is started
 * afresh, at once; calls wait for it. Hooks that were running in it when it
 * ended fail with PluginWorkerEndedError.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { HookPoint } from './own-module.js';
import type { FromWorker, HookReply, HookRequest, WorkerStart } from './own-plugin-protocol.js';
import { PluginNotLoadedError, PluginWorkerEndedError } from './plugin-failures.js';
import { withTimeout } from './timeout.js';

/** Beside this file: the built one in dist/, or the source itself (it is JavaScript). */
const WORKER_SCRIPT = new URL('./own-plugin-worker.js', import.meta.url);

export interface PluginWorkerSpec {
  /** The module, an absolute path. */
  path: string;
  settings: Record<string, unknown>;
  /** How long importing the module and `on_load` may take together. */
  loadTimeoutMs: number;
}

interface Waiting {
  resolve(reply: HookReply): void;
  reject(err: Error): void;
}

/** One started worker: its thread, the gateway's end of the channel, and its start (the module's hooks, once loaded). */
interface Running {
  worker: Worker;
  port: MessagePort;
  ready: Promise<HookPoint[]>;
  loaded: boolean;
}

export class PluginWorker {
  private current: Running | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  /** A start that failed: the error calls fail with until the next try, which is not before `retryAt`. */
  private failure: { error: string; retryAt: number } | undefined;
  private closed = false;

  constructor(private readonly spec: PluginWorkerSpec) {}

  /** Starts the worker; resolves with the module's hooks once `on_load` is done. A load that fails or takes too long ends it. */
  start(): Promise<HookPoint[]> {
    const { port1: port, port2 } = new MessageChannel();
    const data: WorkerStart = { path: this.spec.path, settings: this.spec.settings, port: port2 };
    const worker = new Worker(WORKER_SCRIPT, { workerData: data, transferList: [port2] });
    // Only waiting calls keep the gateway's process alive (the port is ref'd then).
    worker.unref();
    const loaded = new Promise<HookPoint[]>((resolve, reject) => {
      port.on('message', (message: FromWorker) => {
        if ('ready' in message) resolve(message.ready);
        else if ('failed' in message) reject(new Error(message.failed));
        else this.answer(message);
      });
      worker.once('error', (err) => reject(err));
      worker.once('exit', (code) => reject(new Error(exitText(code))));
    });
    const running: Running = { worker, port, ready: loaded, loaded: false };
    this.current = running;
    worker.once('error', (err) => this.lost(running, `it failed: ${err.message}`));
    worker.once('exit', (code) => this.lost(running, exitText(code)));
    // The module's time starts when its thread runs: starting a thread is the gateway's cost, not the module's.
    const online = new Promise<void>((resolve) => worker.once('online', resolve));
    const timed = Promise.race([online, loaded]).then(() =>
      withTimeout(loaded, this.spec.loadTimeoutMs, 'loading (the import and on_load)', () => this.end(running, 'loading took too long')),
    );
    running.ready = timed.then(
      (hooks) => {
        this.failure = undefined;
        running.loaded = true;
        port.unref();
        return hooks;
      },
      (err: Error) => {
        this.failure = { error: err.message, retryAt: Date.now() + this.spec.loadTimeoutMs };
        this.end(running, 'it did not load');
        throw err;
      },
    );
    return running.ready;
  }

  /** Runs a hook in the worker: one message there, one back. */
  call(request: HookRequest, signal?: AbortSignal): Promise<HookReply> {
    const running = this.current;
    if (running?.loaded) return this.post(running, request, signal);
    return this.ready().then((loaded) => this.post(loaded, request, signal));
  }

  /** Ends the worker (its hooks running now fail) and starts a new one for the next calls. */
  restart(why: string): number {
    const ended = this.waiting.size;
    if (this.current) this.end(this.current, why);
    if (!this.closed) this.start().catch(() => undefined);
    return ended;
  }

  /** Runs `on_unload`, then ends the worker for good. */
  async close(): Promise<void> {
    this.closed = true;
    const running = this.current;
    if (running === undefined) return;
    try {
      await running.ready;
      const reply = await this.post(running, { unload: true });
      if ('error' in reply) throw reply.error;
    } finally {
      this.end(running, 'it was unloaded');
    }
  }

  /** The loaded worker calls go to: the current one, or a new one when it ended and may be tried again. */
  private async ready(): Promise<Running> {
    if (this.current === undefined) {
      if (this.closed) throw new PluginNotLoadedError('it was unloaded');
      if (this.failure && Date.now() < this.failure.retryAt) throw new PluginNotLoadedError(`its worker did not start again: ${this.failure.error}`);
      void this.start().catch(() => undefined);
    }
    const running = this.current!;
    await running.ready.catch((err: Error) => {
      throw new PluginNotLoadedError(`its worker did not start again: ${err.message}`);
    });
    return running;
  }

  /** One message to the worker, and the promise of its answer. */
  private post(running: Running, request: HookRequest | { unload: true }, signal?: AbortSignal): Promise<HookReply> {
    const id = this.nextId++;
    const reply = new Promise<HookReply>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    const { port } = running;
    try {
      port.postMessage({ id, ...request });
    } catch (err) {
      // Nothing to clone it with (a value that is no plain data): the hook never ran.
      this.waiting.delete(id);
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    port.ref();
    if (signal === undefined) return reply;
    const cancel = () => port.postMessage({ cancel: id });
    if (signal.aborted) cancel();
    else signal.addEventListener('abort', cancel, { once: true });
    return reply.finally(() => signal.removeEventListener('abort', cancel));
  }

  private answer(message: { id: number } & HookReply): void {
    const waiting = this.waiting.get(message.id);
    if (waiting === undefined) return;
    this.waiting.delete(message.id);
    if (this.waiting.size === 0) this.current?.port.unref();
    waiting.resolve(message);
  }

  private end(running: Running, why: string): void {
    void running.worker.terminate();
    running.port.close();
    this.lost(running, why);
  }

  /** The worker is gone: every hook waiting on it fails, and the next call starts another. */
  private lost(running: Running, why: string): void {
    if (this.current !== running) return;
    this.current = undefined;
    const error = new PluginWorkerEndedError(why);
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}

/** Why a worker ended by itself; Node ends one whose top-level await can never settle with code 13. */
function exitText(code: number): string {
  if (code === 13) return 'its import never finished: a top-level await that never settles (exit code 13)';
  return `its worker exited with code ${code}`;
}
