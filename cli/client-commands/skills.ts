/** skills list | enable NAME | disable NAME. */
import { Command, Option } from 'clipanion';
import { ClientCommand, type Io } from './client-command.js';
import { clip, renderTable } from '../output/table.js';
import { paintStatus } from '../output/colors.js';
import { EXIT } from '../output/exit-codes.js';

export class SkillsListCommand extends ClientCommand {
  static override paths = [['skills', 'list']];
  static override usage = Command.Usage({ category: 'Skills', description: 'Installed skills (GET /skills)' });

  async run(io: Io): Promise<number> {
    io.print(await io.client.skills(), (s) =>
      renderTable(
        ['NAME', 'VERSION', 'STATUS', 'TOOLS', 'WORKFLOWS', 'AUTHOR', 'DESCRIPTION'],
        s.skills.map((k) => [k.name, k.version, paintStatus(io.c, k.status), String(k.tools), String(k.workflows), k.author, clip(k.description, 40)]),
      ),
    );
    return EXIT.ok;
  }
}

abstract class SkillSwitch extends ClientCommand {
  name = Option.String();
  protected abstract readonly enable: boolean;

  async run(io: Io): Promise<number> {
    const r = await io.client.setSkill(this.name, this.enable);
    io.print(r, (safe) => `Skill ${safe.name} ${safe.action}\n`);
    return r.ok ? EXIT.ok : EXIT.failure;
  }
}

export class SkillsEnableCommand extends SkillSwitch {
  static override paths = [['skills', 'enable']];
  static override usage = Command.Usage({ category: 'Skills', description: 'Enable a skill (POST /skills/{name}/enable)' });
  protected readonly enable = true;
}

export class SkillsDisableCommand extends SkillSwitch {
  static override paths = [['skills', 'disable']];
  static override usage = Command.Usage({ category: 'Skills', description: 'Disable a skill (POST /skills/{name}/disable)' });
  protected readonly enable = false;
}
