/**
 * When a plugin runs (`conditions`): every condition given must hold, and
 * the plugin must have a hook for the method. `tools` globs match exposed
 * tool names (picomatch, as the backends' filters do); with `tools` set, a
 * plugin sees tool calls only. A backend's notification belongs to no method
 * or tool: only `backends` narrows the notifications a plugin sees.
 */
import picomatch from 'picomatch';
import type { HookMethod, PluginEntry } from '../../schemas/plugins.js';
import type { PluginCall } from './plugin.js';

export function callMatcher(conditions: PluginEntry['conditions'], hooked?: ReadonlySet<HookMethod>): ((call: PluginCall) => boolean) | undefined {
  const methods = intersect(conditions?.methods, hooked, conditions?.tools === undefined ? undefined : 'tools/call');
  const backends = backendMatcher(conditions);
  const tools = conditions?.tools === undefined ? undefined : picomatch(conditions.tools);
  if (methods === undefined && backends === undefined && tools === undefined) return undefined;
  return (call) =>
    (methods === undefined || methods.has(call.method)) &&
    (backends === undefined || backends(call.backend)) &&
    (tools === undefined || call.method !== 'tools/call' || tools(call.name));
}

/** Whose notifications a plugin sees; undefined: every backend's. */
export function backendMatcher(conditions: PluginEntry['conditions']): ((backend: string) => boolean) | undefined {
  if (conditions?.backends === undefined) return undefined;
  const backends = new Set(conditions.backends);
  return (backend) => backends.has(backend);
}

/** The methods every restriction allows; undefined when none restricts. */
function intersect(
  listed: readonly HookMethod[] | undefined,
  hooked: ReadonlySet<HookMethod> | undefined,
  only: HookMethod | undefined,
): Set<HookMethod> | undefined {
  let allowed: Set<HookMethod> | undefined;
  for (const restriction of [listed, hooked && [...hooked], only && [only]]) {
    if (restriction === undefined) continue;
    allowed = new Set(allowed === undefined ? restriction : restriction.filter((m) => allowed!.has(m)));
  }
  return allowed;
}
