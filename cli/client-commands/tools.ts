/** tools list [--backend NAME], tools search TEXT [--limit N], tools call NAME [--arg key=value]… [--json '{…}'], tools pending | diff NAME | approve NAME. */
import { Command, Option } from 'clipanion';
import { ClientCommand, type Io } from './client-command.js';
import { clip, renderTable } from '../output/table.js';
import { EXIT } from '../output/exit-codes.js';
import { buildArguments } from './tool-arguments.js';
import { integerValue } from '../option-values.js';
import { ToolSearchQuerySchema } from '../../schemas/api.js';
import type { ToolOutcome } from '../client/capability-calls.js';
import { whyHidden } from '../client/tool-availability.js';
import { ApproveDefinitionCommand, DefinitionDiffCommand, PendingDefinitionsCommand } from './pending-definitions.js';

const SEARCH_LIMIT = ToolSearchQuerySchema.properties.limit;

export class ToolsListCommand extends ClientCommand {
  static override paths = [['tools', 'list']];
  static override usage = Command.Usage({
    category: 'Capabilities',
    description: 'Tools, with the backend of each (GET /capabilities?type=tools)',
    details:
      'Every tool the backends offer. HIDDEN says why clients neither see nor call one: filtered (a backend filter), quarantined (its definition waits for approval), "<backend> keeps the name" (a name conflict another backend won), invalid name (it breaks the MCP tool-name rules); empty: callable. PENDING names why a definition waits for approval (red: quarantined).',
  });

  backend = Option.String('--backend', { description: 'Only the tools of this backend' });

  async run(io: Io): Promise<number> {
    io.print(await io.client.capabilities({ type: 'tools', backend: this.backend }), (caps) =>
      renderTable(
        ['NAME', 'BACKEND', 'ORIGINAL', 'HIDDEN', 'PENDING', 'DESCRIPTION'],
        caps.tools.map((t) => {
          const hidden = whyHidden(t);
          return [
            t.name,
            t.backend,
            t.renamed ? t.original_name : '',
            hidden === undefined ? '' : (t.filtered ? io.c.yellow : io.c.red)(hidden),
            t.pending ? (t.quarantined ? io.c.red : io.c.yellow)(t.pending) : '',
            clip(t.description),
          ];
        }),
      ),
    );
    return EXIT.ok;
  }
}

export class ToolsSearchCommand extends ClientCommand {
  static override paths = [['tools', 'search']];
  static override usage = Command.Usage({
    category: 'Capabilities',
    description: 'Search the tools by what they do, best first (GET /tools/search: what find_tool answers)',
    details: "The optimizer's search (docs/optimizer.md), whether or not the optimizer is on. No match is an empty table, not an error.",
    examples: [['Find a tool', 'gateway-client tools search "create an issue on github"']],
  });

  query = Option.String();
  limit = Option.String('--limit', {
    description: `How many tools at most (${SEARCH_LIMIT.minimum}..${SEARCH_LIMIT.maximum}; default optimizer.max_results)`,
    validator: integerValue(SEARCH_LIMIT),
  });

  async run(io: Io): Promise<number> {
    io.print(await io.client.searchTools(this.query, this.limit), (found) =>
      renderTable(
        ['NAME', 'BACKEND', 'SCORE', 'DESCRIPTION'],
        found.tools.map((t) => [t.name, t.backend, t.score.toFixed(2), clip(t.description)]),
      ),
    );
    return EXIT.ok;
  }
}

export class ToolsCallCommand extends ClientCommand {
  static override paths = [['tools', 'call']];
  static override usage = Command.Usage({
    category: 'Capabilities',
    description: 'Call a tool (POST /tools/call, or MCP tools/call with --mcp-token)',
    details:
      "Arguments come from --json (an object) and --arg key=value (repeatable, wins over --json). A value is typed by the tool's input schema: string properties take the text, others read it as JSON (`--arg count=3`). Exit code 1 when the result has isError: true. With an MCP client token (--mcp-token, $GATEWAY_MCP_TOKEN) the call goes over /mcp as that client.",
    examples: [
      ['Echo', 'gateway-client tools call everything_echo --arg message=hi'],
      ['JSON arguments', `gateway-client tools call memory_create_entities --json '{"entities":[]}'`],
    ],
  });

  name = Option.String();
  args = Option.Array('--arg', { description: 'key=value (repeatable)' });
  json = Option.String('--json', { description: 'Arguments as a JSON object' });

  async run(io: Io): Promise<number> {
    const schema = (await io.calls.toolInputSchema(this.name)) as Parameters<typeof buildArguments>[2];
    const result = await io.calls.callTool(this.name, buildArguments(this.args, this.json, schema), io.signal);
    io.print(result, (r) => toolResultText(io, r));
    return result.isError ? EXIT.failure : EXIT.ok;
  }
}

export class ToolsPendingCommand extends PendingDefinitionsCommand {
  static override paths = [['tools', 'pending']];
  static override usage = Command.Usage({
    category: 'Capabilities',
    description: 'Tools whose definitions wait for approval (GET /tools/pending)',
    details:
      'A definition waits when it differs from its pin, appeared later (`new_tools: quarantine`) or holds suspicious text. STATE quarantined: clients neither see nor call it.',
  });
  protected readonly kind = 'tool';
}

export class ToolsDiffCommand extends DefinitionDiffCommand {
  static override paths = [['tools', 'diff']];
  static override usage = Command.Usage({
    category: 'Capabilities',
    description: 'What changed in a pending tool definition, and the suspicious text found',
    details: 'Removed lines red, added ones green (on a terminal). Invisible characters are written out: ⟦U+200B⟧, ⟦hidden: "…"⟧ for tag characters.',
  });
  protected readonly kind = 'tool';
}

export class ToolsApproveCommand extends ApproveDefinitionCommand {
  static override paths = [['tools', 'approve']];
  static override usage = Command.Usage({
    category: 'Capabilities',
    description: 'Pin the current definition of a tool and serve it again (POST /tools/{name}/approve)',
    examples: [['Approve what diff showed', 'gateway-client tools approve fx_read_file --hash 3f1c…']],
  });
  protected readonly kind = 'tool';
}

/** Text items as they are; other items as one JSON line each. */
export function toolResultText(io: Io, r: ToolOutcome): string {
  const body = r.content.map((item) => (item.type === 'text' && item.text !== undefined ? item.text : JSON.stringify(item))).join('\n');
  const text = body.endsWith('\n') || body === '' ? body : `${body}\n`;
  return r.isError ? `${io.c.red(`Tool ${r.tool}${r.backend ? ` (${r.backend})` : ''} reported an error:`)}\n${text}` : text;
}
