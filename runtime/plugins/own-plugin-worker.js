/**
 * The thread a plugin of your own runs in (./plugin-worker.ts starts one per
 * plugin): it imports the module and runs `on_load`, says `ready` (or why
 * not), then runs each hook it is sent and answers with one message. A hook
 * that never returns only stops this thread, which the gateway ends when the
 * hook's time is up. The hook's context is plain data; `settings`, `signal`
 * (aborted when the client cancels) and `block()` are made here.
 *
 * Plain JavaScript, see ./own-module.js. Messages: ./own-plugin-protocol.ts.
 */
import { workerData } from 'node:worker_threads';
import { HOOK_POINTS, importOwnModule, isObject } from './own-module.js';

/**
 * @typedef {import('./own-plugin-protocol.js').WorkerStart} WorkerStart
 * @typedef {import('./own-plugin-protocol.js').ToWorker} ToWorker
 * @typedef {import('./own-plugin-protocol.js').HookReply} HookReply
 * @typedef {import('./own-plugin-protocol.js').WireContext} WireContext
 * @typedef {import('./own-module.js').OwnModule} OwnModule
 */

const { path, settings, port } = /** @type {WorkerStart} */ (workerData);

/** What `ctx.block(reason)` throws: a deliberate stop, not a failure. */
class Blocked {
  /** @param {string} reason */
  constructor(reason) {
    this.reason = reason;
  }
}

/**
 * @param {unknown} reason
 * @returns {never}
 */
const block = (reason) => {
  throw new Blocked(String(reason));
};

/**
 * What a hook is given: the call's data, the settings, `block`, and a
 * `signal` made on first use (most hooks never look; an AbortController per
 * call would be a good part of the hop's cost).
 */
class HookContext {
  /** @type {{ cancelled: boolean, controller?: AbortController }} */
  #state;

  /**
   * @param {WireContext} given
   * @param {{ cancelled: boolean, controller?: AbortController }} state
   */
  constructor(given, state) {
    this.method = given.method;
    this.name = given.name;
    this.backend = given.backend;
    /** @type {Record<string, unknown>} changed in place, or replaced, by a pre hook */
    this.arguments = given.arguments;
    this.identity = given.identity;
    this.session = given.session;
    this.annotations = given.annotations;
    this.settings = settings;
    this.block = block;
    this.#state = state;
  }

  get signal() {
    const state = this.#state;
    if (state.controller === undefined) {
      state.controller = new AbortController();
      if (state.cancelled) state.controller.abort();
    }
    return state.controller.signal;
  }
}

/** The hooks running now, by call id: whether the client cancelled, and the signal's controller once made. */
const running = new Map();

try {
  const mod = await importOwnModule(path);
  await mod.on_load?.(settings);
  port.on('message', (/** @type {ToWorker} */ message) => void handle(mod, message));
  port.postMessage({ ready: Object.keys(mod.hooks) });
} catch (err) {
  port.postMessage({ failed: err instanceof Error ? err.message : String(err) });
  port.close();
}

/**
 * @param {OwnModule} mod
 * @param {ToWorker} message
 */
async function handle(mod, message) {
  if ('cancel' in message) return cancel(message.cancel);
  const { id } = message;
  if ('unload' in message) return settle(id, async () => (await mod.on_unload?.(), { keep: true }));
  const { hook: point, ctx: given, result } = message;
  const hook = mod.hooks[point];
  if (hook === undefined) return send(id, { error: new Error(`no hook ${point}`) });
  const state = { cancelled: false };
  running.set(id, state);
  const ctx = new HookContext(given, state);
  const pre = HOOK_POINTS[point][1] === 'pre';
  await settle(id, async () => {
    const out = await hook(ctx, result);
    return pre ? preReply(ctx.arguments, out) : postReply(result, out);
  });
  running.delete(id);
}

/** @param {number} id */
function cancel(id) {
  const state = running.get(id);
  if (state === undefined) return;
  state.cancelled = true;
  state.controller?.abort();
}

/**
 * Runs what answers call `id` and sends the answer, a block or the failure.
 * @param {number} id
 * @param {() => Promise<HookReply>} run
 */
async function settle(id, run) {
  try {
    send(id, await run());
  } catch (err) {
    send(id, err instanceof Blocked ? { block: err.reason } : { error: err instanceof Error ? err : new Error(String(err)) });
  }
}

/**
 * A pre hook returned `{ result }` (the call is answered), `{ arguments }`, or nothing (it may have changed them in place).
 * @param {Record<string, unknown>} args
 * @param {unknown} out
 * @returns {HookReply}
 */
function preReply(args, out) {
  if (isObject(out) && isObject(out.result)) return { result: out.result };
  const returned = isObject(out) && out.arguments !== undefined;
  return { arguments: returned && isObject(out.arguments) ? out.arguments : args, modified: returned };
}

/**
 * A post hook returns the result, changed (in place, or a new one) or not; nothing keeps it as it came.
 * @param {Record<string, unknown> | undefined} given
 * @param {unknown} out
 * @returns {HookReply}
 */
function postReply(given, out) {
  return isObject(out) ? { result: out, replaced: out !== given } : { keep: true };
}

/**
 * One message per answer; what cannot be cloned (a function in a result) fails the hook instead.
 * @param {number} id
 * @param {HookReply} reply
 */
function send(id, reply) {
  try {
    port.postMessage({ id, ...reply });
  } catch (err) {
    port.postMessage({ id, error: err instanceof Error ? new Error(`its answer cannot be sent: ${err.message}`) : new Error(String(err)) });
  }
}
