/**
 * The container decisions that need no runtime: which base and packages a
 * command gets, the content hash (stable when nothing changes, different
 * when anything that shapes the image does), the recipe, read-only mounts
 * of local scripts, the hardened create options, runtime discovery order,
 * owners, and the auto / true / false policy without a runtime.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfigText } from '../../../../controller/config/config-loader.js';
import type { StdioBackendSpec } from '../../../../schemas/config.js';
import { planImage, repositoryName } from '../../../../runtime/containers/image-plan.js';
import { commandPackages, imageKind } from '../../../../runtime/containers/command-kind.js';
import { localScriptMounts } from '../../../../runtime/containers/local-scripts.js';
import { hardenedCreateOptions, resolveLimits } from '../../../../runtime/containers/hardening.js';
import { endpointCandidates } from '../../../../runtime/containers/runtime-endpoint.js';
import { parseSize } from '../../../../runtime/containers/size.js';
import { currentOwner, formatOwner, ownerAlive, parseOwner } from '../../../../runtime/containers/owner.js';
import { ContainerManager } from '../../../../runtime/containers/container-manager.js';
import { ContainerError } from '../../../../runtime/containers/errors.js';
import { splitReference } from '../../../../runtime/containers/base-from-host.js';
import { spawnSync } from 'node:child_process';
import { placeBackend } from '../../../helpers/container-backends.js';

const config = (yaml = '') => parseConfigText(`backends: {}\n${yaml}`);
const containers = config().containers;
const stdio = (command: string, args: string[] = [], extra: Partial<StdioBackendSpec> = {}): StdioBackendSpec => ({ type: 'stdio', command, args, ...extra });

describe('image kind and packages from the command', () => {
  it('puts npx/node on the Node base, uvx/python/pip on the Python base, anything else on the generic base', () => {
    expect(['npx', 'node', '/usr/bin/node', 'npm'].map(imageKind)).toEqual(['node', 'node', 'node', 'node']);
    expect(['uvx', 'python', 'python3', 'pip', '/usr/local/bin/uvx'].map(imageKind)).toEqual(['python', 'python', 'python', 'python', 'python']);
    expect(['bash', '/opt/server', 'docker'].map(imageKind)).toEqual(['generic', 'generic', 'generic']);
    expect(planImage('a', stdio('npx', ['-y', 'x']), containers).build!.base).toBe(containers.base_images.node);
    expect(planImage('a', stdio('uvx', ['x']), containers).build!.base).toBe(containers.base_images.python);
    expect(planImage('a', stdio('mytool'), containers).build!.base).toBe(containers.base_images.generic);
  });

  it('finds the package an npx or uvx command runs, not the server arguments after it', () => {
    expect(commandPackages('npx', ['-y', '@modelcontextprotocol/server-filesystem', '/data', '--flag'])).toEqual(['@modelcontextprotocol/server-filesystem']);
    expect(commandPackages('npx', ['--yes', 'pkg@1.2.3', 'arg'])).toEqual(['pkg@1.2.3']);
    expect(commandPackages('npx', ['-p', 'a', '--package=b', 'a-cli', '--x'])).toEqual(['a', 'b']);
    expect(commandPackages('uvx', ['mcp-server-fetch', '--ignore-robots'])).toEqual(['mcp-server-fetch']);
    expect(commandPackages('uvx', ['--from', 'git-pkg', 'tool', '--with', 'extra'])).toEqual(['git-pkg']);
    expect(commandPackages('uvx', ['--with', 'extra', '--from', 'pkg', 'tool'])).toEqual(['pkg', 'extra']);
    expect(commandPackages('node', ['server.js'])).toEqual([]);
  });

  it('writes a recipe that installs the packages as root at build time and runs as uid 65532, with no backend env in it', () => {
    const plan = planImage(
      'files',
      stdio('npx', ['-y', '@modelcontextprotocol/server-filesystem', '/data'], {
        env: { API_TOKEN: 'secret-value-123' },
        container: { packages: ['left-pad'] },
      }),
      containers,
    );
    const recipe = plan.build!.recipe;
    expect(recipe).toContain(`FROM ${containers.base_images.node}`);
    expect(recipe).toMatch(/RUN \["npm","install","--prefix","\/opt\/mcp",.*"@modelcontextprotocol\/server-filesystem","left-pad"\]/);
    expect(
      recipe
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('USER'))
        .at(-1),
    ).toBe('USER 65532:65532');
    expect(recipe).not.toContain('secret-value-123');
    expect(recipe).not.toContain('API_TOKEN');
    expect(plan.build!.packages).toEqual(['@modelcontextprotocol/server-filesystem', 'left-pad']);
    // npx resolves an installed package offline from the folder it was installed in.
    expect(plan.run).toMatchObject({ cmd: ['npx', '-y', '@modelcontextprotocol/server-filesystem', '/data'], workdir: '/opt/mcp' });
    expect(plan.run.env).toMatchObject({ npm_config_offline: 'true', HOME: '/home/mcp' });

    const py = planImage('fetch', stdio('uvx', ['mcp-server-fetch'], { container: { packages: ['httpx'] } }), containers).build!.recipe;
    expect(py).toContain('RUN ["uv","tool","install","mcp-server-fetch"]');
    expect(py).toContain('RUN ["python","-m","pip","install","--no-cache-dir","httpx"]');
    const generic = planImage('g', stdio('mytool', [], { container: { packages: ['jq'] } }), containers).build!.recipe;
    expect(generic).toContain('RUN ["apt-get","install","-y","--no-install-recommends","jq"]');
  });

  it('hashes everything that shapes the image: same input, same tag; any change, another tag', () => {
    const base = stdio('npx', ['-y', 'pkg']);
    const hash = (backend: string, spec: StdioBackendSpec, c = containers) => planImage(backend, spec, c).build!.hash;
    expect(hash('a', base)).toBe(hash('a', stdio('npx', ['-y', 'pkg'])));
    expect(hash('a', base)).toMatch(/^[0-9a-f]{64}$/);
    const variants = [
      hash('a', stdio('npx', ['-y', 'pkg@2'])),
      hash('a', stdio('npx', ['-y', 'pkg', '--extra'])),
      hash('a', stdio('npx', ['-y', 'pkg'], { container: { packages: ['more'] } })),
      hash('a', base, config('containers: { base_images: { node: "localhost/other:1" } }').containers),
      hash('b', base),
    ];
    expect(new Set([hash('a', base), ...variants]).size).toBe(variants.length + 1);
    // Runtime-only settings do not shape the image: limits and env change nothing.
    expect(hash('a', stdio('npx', ['-y', 'pkg'], { env: { X: 'y' }, container: { memory: '1g', network: 'bridge' } }))).toBe(hash('a', base));
  });

  it('runs a given container.image as is, without a build', () => {
    const plan = planImage('x', stdio('npx', ['-y', 'pkg'], { container: { image: 'localhost/mine:1' } }), containers);
    expect(plan.build).toBeUndefined();
    expect(plan.image).toBe('localhost/mine:1');
  });

  it('makes image repository names from any backend name', () => {
    expect(repositoryName('Memory')).toBe('memory');
    expect(repositoryName('a..b--c__d')).toBe('a-b-c-d');
    expect(repositoryName('x.y_z-1')).toBe('x.y_z-1');
    expect(repositoryName('_')).toBe('backend');
  });
});

describe('local scripts are mounted read-only, not copied', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-scripts-'));
  mkdirSync(join(dir, 'proj', 'src'), { recursive: true });
  writeFileSync(join(dir, 'proj', 'package.json'), '{}');
  writeFileSync(join(dir, 'proj', 'src', 'server.js'), '');
  mkdirSync(join(dir, 'proj', 'node_modules', 'pkg', 'dist'), { recursive: true });
  writeFileSync(join(dir, 'proj', 'node_modules', 'pkg', 'package.json'), '{}');
  writeFileSync(join(dir, 'proj', 'node_modules', 'pkg', 'dist', 'index.js'), '');
  mkdirSync(join(dir, 'loose'));
  writeFileSync(join(dir, 'loose', 'tool.py'), '');

  it('mounts a script’s project, all of node_modules for a package file, the folder of a loose script', () => {
    expect(localScriptMounts(['src/server.js', '--port', '1'], join(dir, 'proj'))).toEqual([{ path: join(dir, 'proj'), for: 'src/server.js' }]);
    expect(localScriptMounts(['node_modules/pkg/dist/index.js', 'stdio'], join(dir, 'proj'))).toEqual([
      { path: join(dir, 'proj', 'node_modules'), for: 'node_modules/pkg/dist/index.js' },
    ]);
    expect(localScriptMounts([join(dir, 'loose', 'tool.py')], '/')).toEqual([{ path: join(dir, 'loose'), for: join(dir, 'loose', 'tool.py') }]);
    expect(localScriptMounts(['-y', 'not-a-file', '/data'], dir)).toEqual([]);
  });

  it('runs the container in the backend’s working folder so relative paths resolve, and binds read-only', () => {
    const spec = stdio('node', ['src/server.js'], { cwd: join(dir, 'proj') });
    const plan = planImage('s', spec, containers);
    expect(plan.run.workdir).toBe(join(dir, 'proj'));
    expect(plan.run.cmd).toEqual(['node', 'src/server.js']);
    const create = hardenedCreateOptions({ name: 'n', image: 'i', plan, limits: resolveLimits(spec, containers), env: {}, labels: {} });
    expect(create.HostConfig!.Binds).toEqual([`${join(dir, 'proj')}:${join(dir, 'proj')}:ro`]);
    // The script is not in the image: its content does not change the hash.
    writeFileSync(join(dir, 'proj', 'src', 'server.js'), 'changed');
    expect(planImage('s', spec, containers).build!.hash).toBe(plan.build!.hash);
  });
});

describe('hardened create options', () => {
  it('applies every default and each per-backend override', () => {
    const spec = stdio('node', [], { env: { TOKEN: 'secret-token-value' } });
    const plan = planImage('h', spec, containers);
    const create = hardenedCreateOptions({ name: 'n', image: 'img', plan, limits: resolveLimits(spec, containers), env: spec.env!, labels: { l: 'v' } });
    expect(create).toMatchObject({ User: '65532:65532', OpenStdin: true, StdinOnce: true, Tty: false, Entrypoint: [] });
    expect(create.HostConfig).toMatchObject({
      AutoRemove: true,
      Init: true,
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      NetworkMode: 'none',
      Memory: 512 * 1024 ** 2,
      MemorySwap: 512 * 1024 ** 2,
      NanoCpus: 1e9,
      PidsLimit: 256,
      Ulimits: [
        { Name: 'nofile', Soft: 1024, Hard: 1024 },
        { Name: 'nproc', Soft: 4096, Hard: 4096 },
      ],
    });
    expect(Object.keys(create.HostConfig!.Tmpfs!)).toEqual(['/tmp', '/home/mcp']);
    // The secret is in the API's environment only.
    expect(create.Env).toContain('TOKEN=secret-token-value');
    expect(JSON.stringify({ ...create, Env: undefined })).not.toContain('secret-token-value');

    const own = stdio('node', [], { container: { memory: '1g', cpus: 0.5, pids: 64, network: 'bridge' } });
    const global = config('containers: { defaults: { memory: 256m, cpus: 2, pids: 100 } }').containers;
    expect(resolveLimits(own, global)).toEqual({ memoryBytes: 1024 ** 3, cpus: 0.5, pids: 64, network: 'bridge' });
    expect(resolveLimits(stdio('node'), global)).toEqual({ memoryBytes: 256 * 1024 ** 2, cpus: 2, pids: 100, network: 'none' });
  });

  it('reads sizes like the container CLIs and refuses nonsense', () => {
    expect([parseSize('512m'), parseSize('1g'), parseSize('256k'), parseSize('100'), parseSize('1.5G')]).toEqual([
      512 * 1024 ** 2,
      1024 ** 3,
      256 * 1024,
      100,
      1.5 * 1024 ** 3,
    ]);
    expect(() => parseSize('lots')).toThrow(/not a size/);
  });
});

describe('runtime discovery and ownership', () => {
  it('tries the configured socket, DOCKER_HOST, the user and system Podman sockets, then Docker, in that order', () => {
    const list = endpointCandidates('/custom/podman.sock', { DOCKER_HOST: 'unix:///from/env.sock', XDG_RUNTIME_DIR: '/run/user/1000' });
    expect(list.map((e) => (e.kind === 'unix' ? e.path : `${e.host}:${e.port}`))).toEqual([
      '/custom/podman.sock',
      '/from/env.sock',
      '/run/user/1000/podman/podman.sock',
      '/run/podman/podman.sock',
      '/var/run/docker.sock',
    ]);
    expect(endpointCandidates(undefined, { DOCKER_HOST: 'tcp://127.0.0.1:2375' })[0]).toMatchObject({ kind: 'tcp', host: '127.0.0.1', port: 2375 });
  });

  it('knows a live owner from a dead one (and from a reused pid)', () => {
    const me = currentOwner();
    expect(parseOwner(formatOwner(me))).toEqual(me);
    expect(ownerAlive(me)).toBe(true);
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    expect(ownerAlive({ ...me, pid: Number(child.stdout) })).toBe(false);
    expect(ownerAlive({ ...me, start: me.start + 1 })).toBe(false);
    expect(ownerAlive(parseOwner('garbage'))).toBe(false);
  });

  it('splits image references for tagging', () => {
    expect(splitReference('docker.io/library/node:22-slim')).toEqual({ repo: 'docker.io/library/node', tag: '22-slim' });
    expect(splitReference('localhost:5000/x')).toEqual({ repo: 'localhost:5000/x', tag: 'latest' });
  });
});

describe('policy without a runtime', () => {
  // These sockets are absent here and in CI (CI's Podman listens on a private path).
  const noSocket = { socket: '/nonexistent/podman.sock' };
  const env = {};

  it('auto: a bare process, with one start-up warning naming the backends; true: fail closed; false: bare, no warning', async () => {
    expect(existsSync('/run/podman/podman.sock') || existsSync('/var/run/docker.sock')).toBe(false);
    const auto = await ContainerManager.detect({ ...containers, ...noSocket }, { env });
    expect(auto.runtime).toBeUndefined();
    expect(auto.unavailableReason).toContain('/nonexistent/podman.sock (absent)');
    const spec = stdio('node', ['x.js']);
    expect(auto.placement('a', spec)).toMatchObject({ mode: 'process', warn: true });
    expect(auto.startupWarning({ a: spec, b: stdio('npx', ['-y', 'p']), off: { ...spec, enabled: false } })).toMatch(
      /stdio backends a, b run as bare processes/,
    );

    const required = auto.placement('a', stdio('node', [], { container: { enabled: true } }));
    expect(required.mode).toBe('failed');
    const error = (required as { error: ContainerError }).error;
    expect(error).toBeInstanceOf(ContainerError);
    expect(error.reason).toBe('RuntimeUnavailable');
    expect(error.message).toMatch(/a container is required but no container runtime answered/);
    // Through the controller's container steps, as the gateway places it: the backend fails, or runs bare saying why.
    expect(await placeBackend(auto, 'a', stdio('node', [], { container: { enabled: true } }))).toMatchObject({ mode: 'failed', reason: 'RuntimeUnavailable' });
    expect(await placeBackend(auto, 'a', spec)).toMatchObject({ mode: 'process', reason: expect.stringMatching(/^running as a bare process: /) });

    const off = await ContainerManager.detect({ ...containers, ...noSocket, enabled: false }, { env });
    expect(off.placement('a', spec)).toMatchObject({ mode: 'process', warn: false });
    expect(off.startupWarning({ a: spec })).toBeUndefined();
    const strict = await ContainerManager.detect({ ...containers, ...noSocket, enabled: true }, { env });
    expect(strict.placement('a', spec).mode).toBe('failed');
    // A backend's own `container.enabled: false` wins over a global `true`.
    expect(strict.placement('a', stdio('node', [], { container: { enabled: false } }))).toMatchObject({ mode: 'process', warn: false });
  });
});
