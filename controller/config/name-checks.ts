/**
 * Checks that span keys, which the schema alone cannot make: the backends
 * `conflict_resolution.order` names exist, and a renamed tool's exposed
 * name (with its prefix) is a valid MCP tool name. They run on a config that
 * may be invalid elsewhere (so one run shows every problem): nothing is
 * assumed about shapes the schema check reports on its own.
 */
import type { ConfigProblem } from '../../schemas/errors.js';
import { toolNameProblem } from '../../schemas/tool-name.js';
import { SEPARATOR_PATTERN } from '../../schemas/config.js';
import { closestKey } from './key-suggestion.js';

type Loose = Record<string, unknown>;

const asMap = (v: unknown): Loose | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : undefined);

export function nameProblems(cfg: Loose): ConfigProblem[] {
  return [...orderProblems(cfg), ...renameProblems(cfg)];
}

/** Every name in `order` is a backend of this config; and `order` means something only to strategy `priority`. */
function orderProblems(cfg: Loose): ConfigProblem[] {
  const policy = asMap(cfg.conflict_resolution);
  const order = policy?.order;
  if (!Array.isArray(order)) return [];
  const problems: ConfigProblem[] = [];
  if (policy!.strategy !== 'priority') {
    problems.push({ path: 'conflict_resolution.order', message: `is used only by strategy \`priority\` (the strategy is \`${String(policy!.strategy)}\`)` });
  }
  const backends = Object.keys(asMap(cfg.backends) ?? {});
  order.forEach((name, i) => {
    if (typeof name !== 'string' || backends.includes(name)) return;
    const meant = closestKey(name, backends);
    problems.push({
      path: `conflict_resolution.order.${i}`,
      message: `no backend named '${name}' in \`backends\`${meant === undefined ? '' : `; did you mean \`${meant}\`?`}`,
    });
  });
  return problems;
}

/**
 * A rename target is checked by the schema as it is written; under `prefix`
 * the name clients see is longer (`<backend><separator><name>`) and may pass
 * the length limit only then.
 */
function renameProblems(cfg: Loose): ConfigProblem[] {
  const policy = asMap(cfg.conflict_resolution);
  if ((policy?.strategy ?? 'prefix') !== 'prefix') return [];
  const separator = policy?.separator ?? '_';
  // A separator that is not a string or has characters no tool name may have is the schema's to report.
  if (typeof separator !== 'string' || !new RegExp(SEPARATOR_PATTERN).test(separator)) return [];
  const problems: ConfigProblem[] = [];
  for (const [backend, spec] of Object.entries(asMap(cfg.backends) ?? {})) {
    for (const [original, rename] of Object.entries(asMap(asMap(asMap(spec)?.rename)?.tools) ?? {})) {
      const target = asMap(rename)?.name;
      // An invalid target on its own is the schema's to report.
      if (typeof target !== 'string' || toolNameProblem(target) !== undefined) continue;
      const problem = toolNameProblem(`${backend}${separator}${target}`);
      if (problem) {
        problems.push({ path: `backends.${backend}.rename.tools.${original}.name`, message: `is exposed with its prefix as ${problem}` });
      }
    }
  }
  return problems;
}
