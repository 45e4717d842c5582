/**
 * What the signed-in person may do. Actions their role does not allow are
 * shown, but disabled, with the role they need: the gateway would refuse
 * them anyway (docs/management-api.md#roles).
 */
import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import { session } from '../lib/api.js';
import { useStore } from '../lib/store.js';
import type { ManagementRole } from '../lib/types.js';

const ORDER: ManagementRole[] = ['viewer', 'operator', 'admin'];

export function useAllows(needed: ManagementRole): boolean {
  const role = useStore(session)?.role;
  return role !== null && role !== undefined && ORDER.indexOf(role) >= ORDER.indexOf(needed);
}

export interface ActionProps {
  needs: ManagementRole;
  onClick: () => void;
  busy?: boolean;
  disabled?: boolean;
  /** Why it is disabled when the role is not the reason. */
  why?: string;
  children: ComponentChildren;
  kind?: 'primary' | 'danger';
}

export function Action({ needs, onClick, busy, disabled, why, children, kind }: ActionProps) {
  const allowed = useAllows(needs);
  const reason = !allowed ? `Needs the ${needs} role` : disabled ? why : undefined;
  const uid = useId();
  const id = reason ? `why-${uid}` : undefined;
  return (
    <span class="action">
      <button type="button" class={kind} onClick={onClick} disabled={!allowed || disabled || busy} aria-describedby={id} aria-busy={busy || undefined}>
        {children}
      </button>
      {reason && (
        <span id={id} class="muted why">
          {reason}
        </span>
      )}
    </span>
  );
}
