/**
 * The files of a minimal Node.js root file system taken from this host: the
 * running `node` binary, npm (so images can install packages), `/bin/sh` and
 * `/usr/bin/env` (npm runs scripts and `#!/usr/bin/env node` launchers with
 * them), the shared libraries `ldd` lists for those, the host's CA bundle
 * (a registry behind a TLS proxy stays reachable at build time), and a
 * passwd file with the unprivileged user. For offline hosts with no image
 * registry: `gateway build --base-from-host` imports it as the Node base.
 */
import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type RootfsEntry =
  | { type: 'file'; path: string; from: string; mode?: number }
  | { type: 'tree'; path: string; from: string }
  | { type: 'symlink'; path: string; target: string }
  | { type: 'dir'; path: string; mode: number }
  | { type: 'text'; path: string; text: string; mode: number };

export interface HostRootfs {
  entries: RootfsEntry[];
  nodeVersion: string;
  /** Environment of the image (`ENV` changes on import). */
  env: Record<string, string>;
  /** What was taken, for the command's report. */
  summary: { node: string; npm?: string; libraries: string[] };
}

const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
const BIN = '/usr/local/bin';
const NPM_DIR = '/usr/local/lib/node_modules/npm';

export async function collectHostRootfs(nodeBinary = process.execPath): Promise<HostRootfs> {
  const node = realpathSync(nodeBinary);
  const sh = realpathSync('/bin/sh');
  const env = realpathSync('/usr/bin/env');
  const libraries = await sharedLibraries([node, sh, env]);
  const npm = findNpm(node);

  const entries: RootfsEntry[] = [
    ...['/tmp', '/var/tmp'].map((path): RootfsEntry => ({ type: 'dir', path, mode: 0o1777 })),
    ...['/home', '/opt', '/etc/ssl/certs', BIN].map((path): RootfsEntry => ({ type: 'dir', path, mode: 0o755 })),
    { type: 'dir', path: '/root', mode: 0o700 },
    { type: 'file', path: `${BIN}/node`, from: node, mode: 0o755 },
    { type: 'file', path: '/bin/sh', from: sh, mode: 0o755 },
    { type: 'file', path: '/usr/bin/env', from: env, mode: 0o755 },
    ...libraries.map((lib): RootfsEntry => ({ type: 'file', path: lib, from: lib })),
    { type: 'text', path: '/etc/passwd', text: 'root:x:0:0:root:/root:/bin/sh\nnonroot:x:65532:65532:nonroot:/home/mcp:/sbin/nologin\n', mode: 0o644 },
    { type: 'text', path: '/etc/group', text: 'root:x:0:\nnonroot:x:65532:\n', mode: 0o644 },
    { type: 'text', path: '/etc/nsswitch.conf', text: 'passwd: files\ngroup: files\nhosts: files dns\n', mode: 0o644 },
  ];
  const imageEnv: Record<string, string> = { PATH: `${BIN}:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin` };
  if (npm) {
    entries.push(
      { type: 'tree', path: NPM_DIR, from: npm },
      { type: 'symlink', path: `${BIN}/npm`, target: '../lib/node_modules/npm/bin/npm-cli.js' },
      { type: 'symlink', path: `${BIN}/npx`, target: '../lib/node_modules/npm/bin/npx-cli.js' },
    );
  }
  if (existsSync(CA_BUNDLE)) {
    entries.push({ type: 'file', path: CA_BUNDLE, from: CA_BUNDLE, mode: 0o644 });
    imageEnv.NODE_EXTRA_CA_CERTS = CA_BUNDLE;
  }
  return {
    entries,
    nodeVersion: process.version,
    env: imageEnv,
    summary: { node, npm, libraries },
  };
}

/** npm beside the node binary (`<prefix>/bin/node` → `<prefix>/lib/node_modules/npm`), as installers lay it out. */
function findNpm(node: string): string | undefined {
  const candidate = join(dirname(dirname(node)), 'lib', 'node_modules', 'npm');
  return existsSync(join(candidate, 'bin', 'npm-cli.js')) ? candidate : undefined;
}

/** Absolute paths of the shared libraries (and the dynamic loader) `ldd` lists for the binaries. */
async function sharedLibraries(binaries: string[]): Promise<string[]> {
  const found = new Set<string>();
  for (const binary of binaries) {
    const { stdout } = await run('ldd', [binary]);
    for (const line of stdout.split('\n')) {
      // "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or "/lib64/ld-linux-x86-64.so.2 (0x...)"
      const m = /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line);
      if (m) found.add(m[1]!);
    }
  }
  return [...found].sort();
}
