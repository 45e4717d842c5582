/**
 * What a stdio backend's command needs: which base image (Node, Python or a
 * generic one) and which packages its arguments name. `npx -y pkg args` needs
 * the npm package `pkg`; `uvx pkg args` (or `uvx --from pkg cmd`) the Python
 * package `pkg`. Those are installed when the image is built, because the
 * container has no network when it runs.
 */
import { basename } from 'node:path';

export type ImageKind = 'node' | 'python' | 'generic';

const KIND_BY_COMMAND: Record<string, ImageKind> = {
  npx: 'node',
  node: 'node',
  npm: 'node',
  uvx: 'python',
  uv: 'python',
  python: 'python',
  python3: 'python',
  pip: 'python',
  pip3: 'python',
};

/** The command's file name decides: `/usr/bin/node` is `node`. */
export function imageKind(command: string): ImageKind {
  return KIND_BY_COMMAND[commandName(command)] ?? 'generic';
}

export function commandName(command: string): string {
  return basename(command).replace(/\.(exe|cmd)$/i, '');
}

/** npx options that take a value (`--package pkg`, `-p pkg`, `--call cmd`). */
const NPX_VALUE_FLAGS = new Set(['-p', '--package', '-c', '--call', '--cache', '--userconfig', '--registry']);
/** uvx options that take a value. */
const UVX_VALUE_FLAGS = new Set(['--from', '--with', '-w', '--python', '-p', '--index', '--index-url', '--extra-index-url', '--with-requirements']);

/** Packages named by the command line itself (not `container.packages`). */
export function commandPackages(command: string, args: readonly string[]): string[] {
  const name = commandName(command);
  if (name === 'npx') return npxPackages(args);
  if (name === 'uvx') return uvxPackages(args);
  return [];
}

function npxPackages(args: readonly string[]): string[] {
  const named: string[] = [];
  const positional: string[] = [];
  forEachOption(
    args,
    NPX_VALUE_FLAGS,
    (flag, value) => {
      if ((flag === '-p' || flag === '--package') && value) named.push(value);
    },
    positional,
  );
  // With --package, the first positional word is the command to run, not a package.
  if (named.length > 0) return named;
  return positional.length > 0 ? [positional[0]!] : [];
}

function uvxPackages(args: readonly string[]): string[] {
  let from: string | undefined;
  const withs: string[] = [];
  const positional: string[] = [];
  forEachOption(
    args,
    UVX_VALUE_FLAGS,
    (flag, value) => {
      if (flag === '--from' && value) from = value;
      if ((flag === '--with' || flag === '-w') && value) withs.push(value);
    },
    positional,
  );
  const tool = from ?? positional[0];
  return tool ? [tool, ...withs] : withs;
}

/**
 * Walks the options before the first positional word (the package or
 * command); what follows it belongs to the server, not to npx or uvx.
 */
function forEachOption(
  args: readonly string[],
  valueFlags: ReadonlySet<string>,
  onOption: (flag: string, value: string | undefined) => void,
  positional: string[],
): void {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      positional.push(...args.slice(i + 1));
      return;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(...args.slice(i));
      return;
    }
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) onOption(arg.slice(0, eq), arg.slice(eq + 1));
    else if (valueFlags.has(arg)) onOption(arg, args[++i]);
    else onOption(arg, undefined);
  }
}
