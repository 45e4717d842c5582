/**
 * The skills as a local provider of the route table: each enabled skill's
 * workflow tools and files enter it under the route name `skill:<name>`, so
 * they go through the same conflict rules, list_changed notifications,
 * routing, audit and telemetry as a backend's capabilities.
 */
import { RpcRefusal } from '../../schemas/errors.js';
import type { LocalProvider } from '../backends/serving-backends.js';
import type { JsonObject } from '../routing/caller.js';
import { RpcCode } from '../../schemas/json-rpc-codes.js';
import type { SkillManager } from './skill-manager.js';

/** The route name of a skill's capabilities (`:` keeps it apart from every config backend name). */
export const skillRoute = (skill: string): string => `skill:${skill}`;

/** How long a whole workflow may run; each of its steps has its own backend's timeout too. */
export const WORKFLOW_TIMEOUT_MS = 10 * 60_000;

export function skillsProvider(skills: SkillManager): LocalProvider {
  return {
    catalogs: () =>
      new Map(
        [...skills.catalogsBySkill()].map(([skill, c]) => [skillRoute(skill), { tools: c.tools, resources: c.resources, resourceTemplates: [], prompts: [] }]),
      ),
    requestTimeoutMs: WORKFLOW_TIMEOUT_MS,
    onChange: (listener) => skills.onChange(() => listener()),
    async request(_route, method, params: JsonObject | undefined, opts) {
      switch (method) {
        case 'tools/call':
          return skills.callTool(String(params?.name), (params?.arguments as JsonObject | undefined) ?? {}, { caller: opts.caller, signal: opts.signal });
        case 'resources/read':
          return skills.readResource(String(params?.uri));
        // Edits are announced for every served file (notifications/resources/updated): nothing to set up.
        case 'resources/subscribe':
        case 'resources/unsubscribe':
          return {};
        default:
          throw new RpcRefusal(RpcCode.MethodNotFound, `Skills do not answer ${method}`);
      }
    },
  };
}
