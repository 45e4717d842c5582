/** Who × what → verdict: what the authorization policies say about callers with some roles and one resource, and which rule decided. */
import { useId, useState } from 'preact/hooks';
import { ApiError, get, post } from '../lib/api.js';
import { useResource } from '../lib/resource.js';
import type { AuthorizationCheck, Capabilities, SessionRecord } from '../lib/types.js';
import { Badge } from '../components/badge.js';
import { ErrorNote } from '../components/states.js';
import { Json } from '../components/code.js';

const KINDS = ['tool', 'prompt', 'resource', 'server', 'group'] as const;

async function suggestions() {
  const [caps, sessions] = await Promise.all([get<Capabilities>('/capabilities'), get<{ sessions: SessionRecord[] }>('/sessions')]);
  return {
    tool: caps.tools.map((t) => t.name),
    prompt: caps.prompts.map((p) => p.name),
    resource: caps.resources.map((x) => x.uri),
    server: [...new Set(caps.tools.map((t) => t.backend))],
    group: [] as string[],
    roles: [...new Set(sessions.sessions.flatMap((s) => s.roles))].sort(),
  };
}

export function AuthorizationPage() {
  const s = useResource(suggestions, []);
  const [roles, setRoles] = useState('');
  const [kind, setKind] = useState<(typeof KINDS)[number]>('tool');
  const [name, setName] = useState('');
  const [asked, setAsked] = useState<{ roles: string[]; resource: string } | undefined>(undefined);
  const [verdict, setVerdict] = useState<AuthorizationCheck | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const listId = useId();

  const check = async (e: Event) => {
    e.preventDefault();
    const body = { roles: roles.split(/[\s,]+/).filter(Boolean), resource: `${kind}:${name}` };
    setError(undefined);
    try {
      setVerdict(await post<AuthorizationCheck>('/authorization/check', body));
      setAsked(body);
    } catch (err) {
      setVerdict(undefined);
      setError(err as ApiError);
    }
  };

  return (
    <section>
      <h1>Authorization check</h1>
      <p class="muted">What the `authorization` policies of the running config decide for a caller with these roles, and which rule decides it.</p>
      <form class="row-form" onSubmit={(e) => void check(e)}>
        <div class="field">
          <label for="authz-roles">Roles</label>
          <input
            id="authz-roles"
            value={roles}
            onInput={(e) => setRoles(e.currentTarget.value)}
            placeholder="dev, sre (none: a caller without roles)"
            aria-describedby="authz-roles-help"
          />
          <span class="help" id="authz-roles-help">
            Separated by commas or spaces. {s.data && s.data.roles.length > 0 && <>Roles of connected users: {s.data.roles.join(', ')}.</>}
          </span>
        </div>
        <div class="field">
          <label for="authz-kind">Kind</label>
          <select id="authz-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as (typeof KINDS)[number])}>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="authz-name">Name</label>
          <input id="authz-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} list={listId} />
          <datalist id={listId}>
            {s.data?.[kind].map((n) => (
              <option key={n} value={n} />
            ))}
          </datalist>
        </div>
        <button type="submit" class="primary">
          Check
        </button>
      </form>
      {error && <ErrorNote error={error} />}
      {verdict && asked && (
        <div class="verdict card" data-testid="verdict" role="status">
          <p class="big">
            <Badge value={verdict.allowed ? 'allowed' : 'denied'} />
          </p>
          <p>
            Roles {asked.roles.length ? asked.roles.join(', ') : '(none)'} → <code>{asked.resource}</code>:{' '}
            {verdict.policy_index === null ? (
              <>decided by `default_effect` ({verdict.effect}), or authorization is off.</>
            ) : (
              <>
                decided by policy {verdict.policy_index} ({verdict.effect}).
              </>
            )}
          </p>
          {verdict.policy && <Json value={verdict.policy} label="The deciding policy" />}
        </div>
      )}
    </section>
  );
}
