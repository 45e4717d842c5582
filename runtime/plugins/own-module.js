/**
 * A plugin of your own as its module exports it (docs/plugins.md): `{ name?,
 * hooks: { tool_pre_invoke?, … }, on_load?(settings), on_unload?() }`, as
 * its default export or as named exports. Its shape is checked where it is
 * imported: in its worker (./own-plugin-worker.js).
 *
 * Plain JavaScript, like the worker: Node starts the worker from these very
 * files whether the gateway runs built (dist/) or from its sources (the
 * tests, which Node could not run as TypeScript in a worker).
 */
import { pathToFileURL } from 'node:url';

/** Each hook of your own: the method it sees and whether it runs on the way in or out. */
export const HOOK_POINTS = /** @type {const} */ ({
  tool_pre_invoke: ['tools/call', 'pre'],
  tool_post_invoke: ['tools/call', 'post'],
  prompt_pre_fetch: ['prompts/get', 'pre'],
  prompt_post_fetch: ['prompts/get', 'post'],
  resource_pre_fetch: ['resources/read', 'pre'],
  resource_post_fetch: ['resources/read', 'post'],
});

const LIFECYCLE = /** @type {const} */ (['on_load', 'on_unload']);

/**
 * @typedef {keyof typeof HOOK_POINTS} HookPoint
 * @typedef {(ctx: object, result?: Record<string, unknown>) => unknown} Hook
 * @typedef {object} OwnModule
 * @property {string} [name]
 * @property {Partial<Record<HookPoint, Hook>>} hooks
 * @property {(settings: Record<string, unknown>) => unknown} [on_load]
 * @property {() => unknown} [on_unload]
 */

/** Thrown for a module that does not have the shape above, naming what is wrong. */
export class PluginShapeError extends Error {}

/**
 * @param {string} path an absolute path
 * @returns {Promise<OwnModule>}
 */
export async function importOwnModule(path) {
  const exports = /** @type {Record<string, unknown>} */ (await import(pathToFileURL(path).href));
  return shapeOf(exports);
}

/**
 * @param {Record<string, unknown>} exports
 * @returns {OwnModule}
 */
function shapeOf(exports) {
  const root = isObject(exports.default) && 'hooks' in exports.default ? exports.default : exports;
  const hooks = root.hooks;
  if (!isObject(hooks)) throw new PluginShapeError('exports no `hooks` object (see docs/plugins.md)');
  const known = new Set([...Object.keys(HOOK_POINTS), ...LIFECYCLE]);
  for (const [key, value] of Object.entries(hooks)) {
    if (!known.has(key)) throw new PluginShapeError(`unknown hook \`${key}\` (hooks: ${[...known].join(', ')})`);
    if (typeof value !== 'function') throw new PluginShapeError(`hook \`${key}\` is not a function`);
  }
  /** @param {(typeof LIFECYCLE)[number]} key */
  const lifecycle = (key) => root[key] ?? hooks[key];
  for (const key of LIFECYCLE)
    if (lifecycle(key) !== undefined && typeof lifecycle(key) !== 'function') throw new PluginShapeError(`\`${key}\` is not a function`);
  const points = Object.fromEntries(Object.entries(hooks).filter(([key]) => key in HOOK_POINTS));
  return {
    name: typeof root.name === 'string' ? root.name : undefined,
    hooks: /** @type {OwnModule['hooks']} */ (points),
    on_load: /** @type {OwnModule['on_load']} */ (lifecycle('on_load')),
    on_unload: /** @type {OwnModule['on_unload']} */ (lifecycle('on_unload')),
  };
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
export function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
