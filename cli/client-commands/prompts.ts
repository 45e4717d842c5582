/**
 * prompts list, prompts get NAME [--arg key=value]… (POST /prompts/get, or
 * MCP prompts/get as the client of --mcp-token), prompts pending | diff NAME |
 * approve NAME.
 */
import { Command, Option } from 'clipanion';
import { ClientCommand, type Io } from './client-command.js';
import { clip, renderTable } from '../output/table.js';
import { EXIT } from '../output/exit-codes.js';
import { buildStringArguments } from './tool-arguments.js';
import { ApproveDefinitionCommand, DefinitionDiffCommand, PendingDefinitionsCommand } from './pending-definitions.js';

export class PromptsListCommand extends ClientCommand {
  static override paths = [['prompts', 'list']];
  static override usage = Command.Usage({ category: 'Capabilities', description: 'Prompts (GET /capabilities?type=prompts)' });

  backend = Option.String('--backend', { description: 'Only the prompts of this backend' });

  async run(io: Io): Promise<number> {
    io.print(await io.client.capabilities({ type: 'prompts', backend: this.backend }), (caps) =>
      renderTable(
        ['NAME', 'BACKEND', 'ARGUMENTS', 'DESCRIPTION'],
        caps.prompts.map((p) => [p.name, p.backend, p.arguments.map((a) => String(a.name)).join(', '), clip(p.description)]),
      ),
    );
    return EXIT.ok;
  }
}

export class PromptsGetCommand extends ClientCommand {
  static override paths = [['prompts', 'get']];
  static override usage = Command.Usage({
    category: 'Capabilities',
    description: 'Render a prompt (POST /prompts/get, or MCP prompts/get with --mcp-token)',
    examples: [['With an argument', 'gateway-client prompts get fx_greet --arg name=alice']],
  });

  name = Option.String();
  args = Option.Array('--arg', { description: 'key=value (repeatable)' });

  async run(io: Io): Promise<number> {
    const args = buildStringArguments(this.args);
    const result = await io.calls.getPrompt(this.name, args, io.signal);
    io.print(result, (r) =>
      r.messages.map((m) => `${io.c.bold(`[${m.role}]`)} ${m.content.type === 'text' ? m.content.text : JSON.stringify(m.content)}\n`).join(''),
    );
    return EXIT.ok;
  }
}

export class PromptsPendingCommand extends PendingDefinitionsCommand {
  static override paths = [['prompts', 'pending']];
  static override usage = Command.Usage({ category: 'Capabilities', description: 'Prompts whose definitions wait for approval (GET /prompts/pending)' });
  protected readonly kind = 'prompt';
}

export class PromptsDiffCommand extends DefinitionDiffCommand {
  static override paths = [['prompts', 'diff']];
  static override usage = Command.Usage({
    category: 'Capabilities',
    description: 'What changed in a pending prompt definition, and the suspicious text found',
  });
  protected readonly kind = 'prompt';
}

export class PromptsApproveCommand extends ApproveDefinitionCommand {
  static override paths = [['prompts', 'approve']];
  static override usage = Command.Usage({
    category: 'Capabilities',
    description: 'Pin the current definition of a prompt and serve it again (POST /prompts/{name}/approve)',
  });
  protected readonly kind = 'prompt';
}
