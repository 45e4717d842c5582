/**
 * A folder only its owner may enter: the state folder holds pinned tool
 * definitions and OAuth tokens. `mkdir`'s mode applies only to a folder it
 * makes, so a folder that was already there (made by hand, by another tool,
 * by an older version) keeps whatever it had, 0755 as often as not. One the
 * gateway's user owns is tightened to 0700; one owned by someone else cannot
 * be, and the caller is told so it can warn.
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';

export type PrivateFolder =
  | { outcome: 'private' }
  /** Not there, and not to be made. */
  | { outcome: 'missing' }
  | { outcome: 'tightened'; from: number }
  /** Open to others and owned by another user: left as it is. */
  | { outcome: 'open'; mode: number; owner: number };

export interface PrivateFolderOptions {
  /** Make the folder (and its parents) when it is missing; otherwise a missing folder is left missing. */
  create: boolean;
  /** Whose folder the gateway may change: the process's user (tests pass another). */
  uid?: number;
}

export function privateFolder(path: string, opts: PrivateFolderOptions): PrivateFolder {
  if (opts.create) mkdirSync(path, { recursive: true, mode: 0o700 });
  let mode: number;
  let owner: number;
  try {
    const st = statSync(path);
    mode = st.mode & 0o777;
    owner = st.uid;
  } catch (err) {
    if (!opts.create && (err as NodeJS.ErrnoException).code === 'ENOENT') return { outcome: 'missing' };
    throw err;
  }
  if ((mode & 0o077) === 0) return { outcome: 'private' };
  if (owner !== (opts.uid ?? process.getuid?.())) return { outcome: 'open', mode, owner };
  chmodSync(path, 0o700);
  return { outcome: 'tightened', from: mode };
}

/** `0755`. */
export const octal = (mode: number): string => `0${mode.toString(8)}`;
