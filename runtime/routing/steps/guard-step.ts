/**
 * Step 4 of the call pipeline: the plugin chain of the running config
 * (guardrails: blocks, redaction, cache, retries) around the rest of the
 * call, for tool calls, prompt gets and resource reads. None configured: no
 * chain, not even a check per plugin.
 */
import type { HookMethod } from '../../../schemas/plugins.js';
import type { PluginChain } from '../../plugins/plugin-chain.js';
import type { PluginCall } from '../../plugins/plugin.js';
import type { CallerContext, ForwardOptions, JsonObject } from '../caller.js';
import type { CallStep } from '../call-pipeline.js';
import type { Route, ToolEntry } from '../route-table.js';

export function guardStep(plugins: () => PluginChain | undefined): CallStep {
  return (call, next) => {
    const chain = plugins();
    const { op, route, outgoing } = call;
    if (chain === undefined || op.hook === undefined || !route || !outgoing) return next();
    const params = outgoing.params;
    const plugged = pluginCall(op.hook, op.capability, route, params, call.caller, call.opts);
    // The plugins may replace the call's arguments: what they were given is kept to compare.
    const given = plugged.arguments;
    return chain.run(call.ctx, plugged, (args) => {
      // Arguments the plugins left as they were go as they came (absent stays absent); a resource has none.
      const unchanged = args === given || op.hook === 'resources/read';
      call.outgoing = unchanged ? outgoing : { ...outgoing, params: { ...params, arguments: args } };
      return next();
    });
  };
}

/** An operation as the plugins see it: a tool's annotations come from the route table. */
function pluginCall(method: HookMethod, name: string, route: Route, params: JsonObject, caller: CallerContext, opts: ForwardOptions): PluginCall {
  const args = params.arguments as JsonObject | undefined;
  return {
    method,
    name,
    backend: route.backend,
    originalName: route.original,
    annotations: (route as Partial<ToolEntry>).tool?.annotations,
    arguments: method === 'resources/read' ? {} : (args ?? {}),
    caller,
    signal: opts.signal,
  };
}
