/**
 * authz check [--role R]… [--user ID] [--claim k=v]… [--arg k=v]… [--json '{…}']
 * [--method M] [--revision R] [--client-name N] RESOURCE: what the running
 * gateway's policies say about such a caller, like `kubectl auth can-i`,
 * with the facts a policy's `when` reads: exit 0 when allowed, 1 when
 * denied (POST /authorization/check).
 */
import { Command, Option } from 'clipanion';
import { ClientCommand, type Io } from './client-command.js';
import { EXIT } from '../output/exit-codes.js';
import { buildArguments } from './tool-arguments.js';
import type { AuthorizationCheck } from '../client/api-types.js';

export class AuthzCheckCommand extends ClientCommand {
  static override paths = [['authz', 'check']];
  static override usage = Command.Usage({
    category: 'Authorization',
    description: 'Whether a caller with these roles may use a resource; exit 0 if allowed, 1 if denied (POST /authorization/check)',
    details:
      "A policy's `when` sees the facts given here: `--arg`/`--json` the call's arguments, `--user` and `--claim` the caller, `--method`, `--revision` and `--client-name` the request. A value is read as JSON when it parses (`--arg count=3` is a number), else as text. The answer names the policy that decided and why, and each `when` evaluated on the way.",
    examples: [
      ['A tool, for role dev', '$0 authz check --role dev tool:github_create_issue'],
      ['A resource, for a caller with no roles', '$0 authz check resource:file:///docs/readme.md'],
      ['A call with arguments', '$0 authz check --role dev --arg path=/etc/passwd tool:files_read_file'],
      ['A caller with a claim', '$0 authz check --user alice --claim org=acme tool:github_create_issue'],
    ],
  });

  roles = Option.Array('--role', [], { description: 'a role of the caller (repeatable; none: a caller without roles)' });
  user = Option.String('--user', { description: "the caller's id (caller.id)" });
  claims = Option.Array('--claim', { description: 'a claim of the caller, key=value (repeatable)' });
  args = Option.Array('--arg', { description: 'an argument of the call, key=value (repeatable, wins over --json)' });
  json = Option.String('--json', { description: 'the arguments as a JSON object' });
  method = Option.String('--method', { description: 'request.method (default: the call on the resource, e.g. tools/call)' });
  revision = Option.String('--revision', { description: 'request.revision, e.g. 2025-11-25' });
  clientName = Option.String('--client-name', { description: 'request.client_name' });
  resource = Option.String({ name: 'resource' });

  async run(io: Io): Promise<number> {
    const request = { method: this.method, revision: this.revision, client_name: this.clientName };
    const verdict = await io.client.authorizationCheck({
      roles: this.roles,
      resource: this.resource,
      ...(this.user === undefined ? {} : { user_id: this.user }),
      ...(this.claims ? { claims: buildArguments(this.claims, undefined) } : {}),
      ...(this.args || this.json !== undefined ? { arguments: buildArguments(this.args, this.json) } : {}),
      ...(Object.values(request).some((v) => v !== undefined) ? { request } : {}),
    });
    io.print(verdict, () => verdictText(io, verdict));
    return verdict.allowed ? EXIT.ok : EXIT.failure;
  }
}

function verdictText(io: Io, verdict: AuthorizationCheck): string {
  const word = verdict.allowed ? io.c.green('allowed') : io.c.red('denied');
  const lines = [`${word}: ${verdict.reason}`];
  if (verdict.when !== undefined) lines.push(`  when: ${verdict.when}`);
  for (const c of verdict.conditions) lines.push(`  policy ${c.policy_index} when → ${c.outcome}${c.error ? ` (${c.error})` : ''}`);
  return `${lines.join('\n')}\n`;
}
