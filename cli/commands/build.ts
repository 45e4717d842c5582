/**
 * `gateway build`: builds the container image of every stdio backend ahead
 * of time, so the first `gateway server` start does not wait for it. An
 * unchanged backend's image is found by its content tag and not rebuilt.
 * `--base-from-host` first makes the Node base image from this host's
 * Node.js, for hosts that reach no image registry.
 */
import { Command, Option } from 'clipanion';
import type { GatewayConfig, StdioBackendSpec } from '../../schemas/config.js';
import type { ContainerRuntime } from '../../runtime/containers/container-runtime.js';

export class BuildCommand extends Command {
  static override paths = [['build']];
  static override usage = Command.Usage({
    description: 'Pre-build the container images of the stdio backends',
    details:
      'Builds (or finds up to date) the hardened container image of every stdio backend, with progress output; exits 1 if any failed. ' +
      '`--base-from-host` first makes the configured Node base image from this host`s node binary and the libraries it needs (for hosts with no image registry).',
    examples: [
      ['Build every stdio backend', 'gateway build'],
      ['On an offline host', 'gateway build --base-from-host'],
      ['One backend, from scratch', 'gateway build --backend memory --no-cache'],
    ],
  });

  config = Option.String('--config,-c', { description: 'Config file path' });
  backend = Option.String('--backend', { description: 'Build only this backend' });
  noCache = Option.Boolean('--no-cache', false, { description: 'Rebuild even when the image is up to date, without the build cache' });
  baseFromHost = Option.Boolean('--base-from-host', false, { description: "Make the Node base image from this host's Node.js first" });

  async execute(): Promise<number> {
    const out = this.context.stdout;
    // Loaded here, not at the top: the config loader compiles its validators on import, a second
    // that `gateway --version`, `status` and every other command would pay.
    const [{ loadConfigFile, locateConfigFile }, { GatewayError }] = await Promise.all([
      import('../../controller/config/config-loader.js'),
      import('../../schemas/errors.js'),
    ]);
    let config: GatewayConfig;
    try {
      config = loadConfigFile(locateConfigFile(this.config)).config;
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      this.context.stderr.write(`${err.message}\n`);
      return 1;
    }
    const backends = selectBackends(config, this.backend);
    if (typeof backends === 'string') {
      this.context.stderr.write(`${backends}\n`);
      return 1;
    }
    // Loaded here, not at the top: the runtime client costs every other `gateway` command half a second to import.
    const { ContainerManager } = await import('../../runtime/containers/container-manager.js');
    const manager = await ContainerManager.detect(config.containers);
    const runtime = manager.runtime;
    if (!runtime) {
      this.context.stderr.write(`Cannot build: ${manager.unavailableReason}\n`);
      return 1;
    }
    out.write(`Container runtime: ${runtime.name} ${runtime.version} at ${runtime.address}\n`);
    if (this.baseFromHost && !(await this.makeBase(runtime, config.containers.base_images.node))) return 1;

    let failed = 0;
    for (const [name, spec] of backends) {
      const placement = manager.placement(name, spec);
      if (placement.mode !== 'container') {
        out.write(`${name}: skipped (${placement.mode === 'process' ? placement.reason : placement.error.message})\n`);
        continue;
      }
      const started = performance.now();
      out.write(`${name}: ${placement.plan.build ? `image from ${placement.plan.build.base}` : `image ${placement.plan.image}`}\n`);
      try {
        const image = await manager.ensureImage(placement.plan, { noCache: this.noCache, onProgress: (line) => out.write(`  ${name} | ${line}\n`) });
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        out.write(image.built ? `${name}: built ${image.image} in ${seconds} s\n` : `${name}: ${image.image} is up to date\n`);
      } catch (err) {
        failed++;
        out.write(`${name}: FAILED: ${(err as Error).message}\n`);
      }
    }
    if (backends.length === 0) out.write('No stdio backends to build.\n');
    else out.write(failed === 0 ? 'All images are ready.\n' : `${failed} of ${backends.length} image(s) failed.\n`);
    return failed === 0 ? 0 : 1;
  }

  private async makeBase(runtime: ContainerRuntime, image: string): Promise<boolean> {
    const out = this.context.stdout;
    const { buildBaseFromHost } = await import('../../runtime/containers/base-from-host.js');
    try {
      const base = await buildBaseFromHost(runtime, image, { force: this.noCache, onProgress: (line) => out.write(`  base | ${line}\n`) });
      const what = `Node.js ${base.source.replace(/^host-node /, '')} from ${base.rootfs.node}, ${base.rootfs.libraries.length} shared libraries${base.rootfs.npm ? ', npm' : ''}`;
      out.write(
        base.imported
          ? `Made the Node base image ${image} from this host (${what}); it is the configured Node base (containers.base_images.node).\n`
          : `The Node base image ${image} made from this host is up to date (${what}).\n`,
      );
      return true;
    } catch (err) {
      this.context.stderr.write(`Making the Node base image from this host failed: ${(err as Error).message}\n`);
      return false;
    }
  }
}

/** The enabled stdio backends, or only the one named; a message when the name is wrong. */
function selectBackends(config: GatewayConfig, only: string | undefined): [string, StdioBackendSpec][] | string {
  const stdio = Object.entries(config.backends).filter((e): e is [string, StdioBackendSpec] => e[1].type === 'stdio');
  if (only === undefined) return stdio.filter(([, spec]) => spec.enabled !== false);
  const spec = config.backends[only];
  if (!spec) return `Unknown backend: ${only}`;
  if (spec.type !== 'stdio') return `Backend ${only} is ${spec.type}: only stdio backends run in containers`;
  return [[only, spec]];
}
