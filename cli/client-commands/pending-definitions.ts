/**
 * `tools pending|diff|approve` and `prompts pending|diff|approve`: the
 * definitions waiting for an operator (docs/tool-pinning.md), read and
 * approved through the management API. One implementation for both kinds;
 * tools.ts and prompts.ts name the commands.
 */
import { Option } from 'clipanion';
import { ClientCommand, type Io } from './client-command.js';
import { clip, formatDuration, renderTable } from '../output/table.js';
import { EXIT } from '../output/exit-codes.js';
import { CommandFailure } from '../output/report-error.js';
import { renderPendingDiff, type PendingView } from '../output/definition-diff.js';
import type { PendingPrompt, PendingTool } from '../client/api-types.js';

export type DefinitionKind = 'tool' | 'prompt';

async function pendingOf(io: Io, kind: DefinitionKind): Promise<Array<PendingTool | PendingPrompt>> {
  return kind === 'tool' ? (await io.client.pendingTools()).pending : (await io.client.pendingPrompts()).pending;
}

function viewOf(kind: DefinitionKind, p: PendingTool | PendingPrompt): PendingView {
  return { ...p, kind, original: 'tool' in p ? p.tool : p.prompt, diff: p.diff as PendingView['diff'] };
}

export abstract class PendingDefinitionsCommand extends ClientCommand {
  protected abstract readonly kind: DefinitionKind;

  async run(io: Io): Promise<number> {
    const kind = this.kind;
    const pending = await pendingOf(io, kind);
    io.print({ pending }, (safe) => {
      if (safe.pending.length === 0) return `No ${kind}s wait for approval.\n`;
      const rows = safe.pending.map((p) => {
        const age = formatDuration((Date.now() - Date.parse(p.since)) / 1000);
        const state = p.quarantined ? io.c.red('quarantined') : io.c.yellow('served');
        return [p.name, p.backend, p.reason, state, age, clip(p.findings.map((f) => f.detail).join('; '), 50)];
      });
      const hint = io.c.dim(`Read one with: gateway-client ${kind}s diff NAME; approve it with: gateway-client ${kind}s approve NAME`);
      return `${renderTable(['NAME', 'BACKEND', 'REASON', 'STATE', 'SINCE', 'FINDINGS'], rows)}${hint}\n`;
    });
    return EXIT.ok;
  }
}

export abstract class DefinitionDiffCommand extends ClientCommand {
  protected abstract readonly kind: DefinitionKind;
  name = Option.String();

  async run(io: Io): Promise<number> {
    const entry = (await pendingOf(io, this.kind)).find((p) => p.name === this.name);
    if (!entry)
      throw new CommandFailure(
        `${this.kind === 'tool' ? 'Tool' : 'Prompt'} ${this.name} is not waiting for approval (see gateway-client ${this.kind}s pending)`,
      );
    io.print(entry, (safe) => renderPendingDiff(io.c, viewOf(this.kind, safe)));
    return EXIT.ok;
  }
}

export abstract class ApproveDefinitionCommand extends ClientCommand {
  protected abstract readonly kind: DefinitionKind;
  name = Option.String();
  hash = Option.String('--hash', { description: 'Approve only if this is still the definition waiting (the hash `diff` showed)' });

  async run(io: Io): Promise<number> {
    const approved = this.kind === 'tool' ? await io.client.approveTool(this.name, this.hash) : await io.client.approvePrompt(this.name, this.hash);
    io.print(approved, (a) => {
      const original = 'tool' in a ? a.tool : a.prompt;
      return `Approved ${this.kind} ${a.name} (backend ${a.backend}, as ${original}): pinned sha256 ${a.hash}; clients see it again\n`;
    });
    return EXIT.ok;
  }
}
