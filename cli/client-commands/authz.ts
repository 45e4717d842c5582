/**
 * authz check [--role R]… RESOURCE: what the running gateway's policies say
 * about a caller with these roles, like `kubectl auth can-i`: exit 0 when
 * allowed, 1 when denied (POST /authorization/check).
 */
import { Command, Option } from 'clipanion';
import { ClientCommand, type Io } from './client-command.js';
import { EXIT } from '../output/exit-codes.js';

export class AuthzCheckCommand extends ClientCommand {
  static override paths = [['authz', 'check']];
  static override usage = Command.Usage({
    category: 'Authorization',
    description: 'Whether callers with these roles may use a resource; exit 0 if allowed, 1 if denied (POST /authorization/check)',
    examples: [
      ['A tool, for role dev', '$0 authz check --role dev tool:github_create_issue'],
      ['A resource, for a caller with no roles', '$0 authz check resource:file:///docs/readme.md'],
    ],
  });

  roles = Option.Array('--role', [], { description: 'a role of the caller (repeatable; none: a caller without roles)' });
  resource = Option.String({ name: 'resource' });

  async run(io: Io): Promise<number> {
    const verdict = await io.client.authorizationCheck({ roles: this.roles, resource: this.resource });
    io.print(verdict, () => {
      const by = verdict.policy_index === null ? 'default_effect' : `policy ${verdict.policy_index}`;
      const word = verdict.allowed ? io.c.green('allowed') : io.c.red('denied');
      return `${word} (${by}: ${verdict.effect})\n`;
    });
    return verdict.allowed ? EXIT.ok : EXIT.failure;
  }
}
