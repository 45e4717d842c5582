/**
 * Issues 23 and 31: the Kubernetes manifests (deploy/kubernetes) and the
 * image (Containerfile). Each kustomization is rendered with the real
 * `kubectl kustomize` (offline) from a copy of deploy/kubernetes, with the
 * input an operator writes (with-redis: its secret.env), and every object
 * validated against the Kubernetes API schemas (npm `kubernetes-models`);
 * then what must agree does: selectors and labels, probe paths and ports and
 * the config's ports (the probes on the management port), the grace period
 * and the shutdown timeout, the mounted ConfigMap and the image's --config,
 * the Secret's keys and the env, and the ConfigMap's config.yaml passes
 * `gateway config validate`. What must not be is not: no manifest carries a
 * secret value (a placeholder least of all), the NetworkPolicy admits the
 * management port from the operators' namespace only, and MCP clients must
 * authenticate.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from '../../fixtures/spawn.js';
import { ConfigSchema } from '../../../schemas/config.js';
import { isPlaceholderToken, managementTokenProblem } from '../../../schemas/management-token.js';

type Obj = Record<string, any>;

const ROOT = repoRoot();
const SERVER_DEFAULTS = (ConfigSchema.properties.server as unknown as { properties: Record<string, { default: number }> }).properties;
const KUBECTL = process.env.KUBECTL ?? 'kubectl';
const KUSTOMIZATIONS = ['base', 'overlays/production', 'overlays/with-redis'];
/** The label that opens the management port to a namespace (base/networkpolicy.yaml). */
const OPERATORS = { 'mcp-gateway/operators': 'true' };

/** What an operator puts in with-redis/secret.env: fresh random values, never a default. */
const OPERATOR_INPUT = {
  GATEWAY_MGMT_TOKEN: randomBytes(32).toString('hex'),
  MCP_CLIENT_TOKEN: randomBytes(32).toString('hex'),
  REDIS_URL: 'redis://redis:6379/0',
};
const INPUT_VALUES = new Set(Object.values(OPERATOR_INPUT));

/** deploy/kubernetes as committed, copied (so an operator's secret.env in this checkout plays no part). */
function committedCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-k8s-'));
  cpSync(join(ROOT, 'deploy', 'kubernetes'), dir, { recursive: true, filter: (src) => !src.endsWith('secret.env') });
  return dir;
}

function kustomize(tree: string, dir: string): { ok: boolean; yaml: string; stderr: string } {
  const run = spawnSync(KUBECTL, ['kustomize', join(tree, dir)], { encoding: 'utf8' });
  return { ok: run.status === 0, yaml: run.stdout, stderr: run.stderr };
}

function render(dir: string): Obj[] {
  const tree = committedCopy();
  try {
    if (dir === 'overlays/with-redis') {
      writeFileSync(
        join(tree, dir, 'secret.env'),
        Object.entries(OPERATOR_INPUT)
          .map(([k, v]) => `${k}=${v}\n`)
          .join(''),
      );
    }
    const out = kustomize(tree, dir);
    if (!out.ok) throw new Error(`kubectl kustomize ${dir} failed: ${out.stderr}`);
    const objs = parseAllDocuments(out.yaml).map((d) => d.toJS() as Obj);
    // kustomize wraps a generated Secret's base64 at 70 columns, which the API server's decoder skips and the schema's does not.
    for (const o of objs.filter((o) => o.kind === 'Secret' && o.data)) for (const k of Object.keys(o.data)) o.data[k] = String(o.data[k]).replace(/\s/g, '');
    return objs;
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}

/** The kubernetes-models class of an object (`apps/v1` Deployment → kubernetes-models/apps/v1/Deployment). */
async function modelOf(obj: Obj): Promise<new (data: Obj) => { validate(): void }> {
  const [group, version] = String(obj.apiVersion).includes('/') ? String(obj.apiVersion).split('/') : [undefined, String(obj.apiVersion)];
  const module = (await import(`kubernetes-models/${group ? `${group}/` : ''}${version}/${obj.kind}`)) as Record<string, unknown>;
  return module[obj.kind] as new (data: Obj) => { validate(): void };
}

const find = (objs: Obj[], kind: string, name?: string) => {
  const found = objs.filter((o) => o.kind === kind && (name === undefined || o.metadata.name.startsWith(name)));
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0]!;
};

const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

const CREDENTIAL_NAME = /TOKEN|SECRET|PASSWORD|API_KEY|CREDENTIAL/i;

/**
 * Every secret value the rendered manifests carry that the operator did not
 * put in: a Secret's data, an env `value` or a config key named like a
 * credential, the management token in the config. A placeholder is named as such.
 */
function secretsInManifests(objs: Obj[]): string[] {
  const found: string[] = [];
  const judge = (where: string, value: unknown) => {
    if (typeof value !== 'string' || INPUT_VALUES.has(value) || /^\$\{[A-Z0-9_]+\}$/.test(value)) return;
    found.push(`${where}${isPlaceholderToken(value) ? ' (a placeholder)' : ''}`);
  };
  for (const o of objs) {
    const name = `${o.kind} ${o.metadata?.name}`;
    if (o.kind === 'Secret') {
      for (const [k, v] of Object.entries({ ...(o.stringData ?? {}) })) judge(`${name} stringData.${k}`, v);
      for (const [k, v] of Object.entries({ ...(o.data ?? {}) })) judge(`${name} data.${k}`, Buffer.from(String(v), 'base64').toString('utf8'));
    }
    for (const c of o.spec?.template?.spec?.containers ?? []) {
      for (const e of c.env ?? []) if (CREDENTIAL_NAME.test(e.name) && e.value !== undefined) judge(`${name} env ${e.name}`, e.value);
    }
    if (o.kind === 'ConfigMap' && o.data?.['config.yaml']) {
      const config = parse(o.data['config.yaml']) as Obj;
      judge(`${name} server.management.token`, config.server?.management?.token);
      (config.incoming_auth?.tokens ?? []).forEach((t: Obj, i: number) => judge(`${name} incoming_auth.tokens.${i}.token`, t.token));
    }
  }
  return found;
}

/** A container port's number from its number or name. */
const portNumber = (container: Obj, port: number | string) =>
  typeof port === 'number' ? port : container.ports.find((p: Obj) => p.name === port)?.containerPort;

/** Sources of the gateway pods' NetworkPolicy rules that admit `port`: `anywhere`, or the label sets of the namespaces admitted. */
function admittedSources(objs: Obj[], labels: Record<string, string>, container: Obj, port: number): Array<'anywhere' | Record<string, string>> {
  const sources: Array<'anywhere' | Record<string, string>> = [];
  for (const policy of objs.filter((o) => o.kind === 'NetworkPolicy' && selects(o.spec.podSelector.matchLabels ?? {}, labels))) {
    for (const rule of policy.spec.ingress ?? []) {
      const ports = rule.ports ?? [];
      if (ports.length > 0 && !ports.some((p: Obj) => portNumber(container, p.port) === port)) continue;
      const from: Obj[] = rule.from ?? [];
      if (from.length === 0) sources.push('anywhere');
      for (const peer of from) {
        const anyNamespace =
          peer.namespaceSelector && Object.keys(peer.namespaceSelector.matchLabels ?? {}).length === 0 && !peer.namespaceSelector.matchExpressions;
        if (peer.ipBlock || anyNamespace || (!peer.namespaceSelector && !peer.podSelector)) sources.push('anywhere');
        else if (peer.namespaceSelector) sources.push(peer.namespaceSelector.matchLabels);
        // A podSelector alone admits pods of the gateway's own namespace: no operator namespace, so not allowed either.
        else sources.push({ 'own-namespace-pods': JSON.stringify(peer.podSelector) });
      }
    }
  }
  return sources;
}

describe.each(KUSTOMIZATIONS)('deploy/kubernetes/%s', (dir) => {
  const objs = render(dir);

  it('renders, and every object is valid against the Kubernetes API schemas', async () => {
    expect(objs.length).toBeGreaterThanOrEqual(6);
    for (const obj of objs) {
      const Model = await modelOf(obj);
      expect(() => new Model(obj).validate(), `${obj.kind} ${obj.metadata?.name}`).not.toThrow();
    }
    // The validator sees the same objects: a wrong type is refused (so the check above checks something).
    const broken = structuredClone(find(objs, 'Deployment', 'mcp-gateway'));
    broken.spec.replicas = 'three';
    const Model = await modelOf(broken);
    expect(() => new Model(broken).validate()).toThrow(/replicas/);
  });

  it('selectors match the pod labels; the Service, probes and network policy use the ports the config listens on', () => {
    const deployment = find(objs, 'Deployment', 'mcp-gateway');
    const pod = deployment.spec.template;
    const labels = pod.metadata.labels as Record<string, string>;
    expect(deployment.spec.replicas).toBe(3);
    expect(selects(deployment.spec.selector.matchLabels, labels)).toBe(true);
    expect(selects(find(objs, 'Service', 'mcp-gateway').spec.selector, labels)).toBe(true);
    expect(selects(find(objs, 'PodDisruptionBudget', 'mcp-gateway').spec.selector.matchLabels, labels)).toBe(true);
    const policy = find(objs, 'NetworkPolicy', 'mcp-gateway');
    expect(selects(policy.spec.podSelector.matchLabels, labels)).toBe(true);
    const hpa = find(objs, 'HorizontalPodAutoscaler', 'mcp-gateway');
    expect(hpa.spec.scaleTargetRef).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(3);

    const config = parse(find(objs, 'ConfigMap').data['config.yaml']) as Obj;
    const gateway = pod.spec.containers.find((c: Obj) => c.name === 'gateway');
    expect(config.server.host).toBe('0.0.0.0');
    expect(portNumber(gateway, 'http')).toBe(config.server.port);
    // The management API has a port of its own; the probes ask it there (the MCP port answers 404 under /manage/v1).
    expect(config.server.management.port).toBeGreaterThan(0);
    expect(config.server.management.port).not.toBe(config.server.port);
    expect(portNumber(gateway, 'management')).toBe(config.server.management.port);
    const probePort = (probe: string) => portNumber(gateway, gateway[probe].httpGet.port);
    for (const probe of ['startupProbe', 'livenessProbe']) {
      expect(gateway[probe].httpGet.path, probe).toBe('/manage/v1/health');
      expect(probePort(probe), probe).toBe(config.server.management.port);
    }
    expect(gateway.readinessProbe.httpGet.path).toBe('/manage/v1/ready');
    expect(probePort('readinessProbe')).toBe(config.server.management.port);
    const service = find(objs, 'Service', 'mcp-gateway');
    expect(service.spec.ports.map((p: Obj) => portNumber(gateway, p.targetPort)).sort()).toEqual([config.server.port, config.server.management.port].sort());
    expect(admittedSources(objs, labels, gateway, config.server.port)).toContain('anywhere');
  });

  it("the NetworkPolicy admits the management port from the operators' namespace only; the checker sees a policy that does not", () => {
    const pod = find(objs, 'Deployment', 'mcp-gateway').spec.template;
    const gateway = pod.spec.containers.find((c: Obj) => c.name === 'gateway');
    const port = (parse(find(objs, 'ConfigMap').data['config.yaml']) as Obj).server.management.port as number;
    expect(admittedSources(objs, pod.metadata.labels, gateway, port)).toEqual([OPERATORS]);
    // Each way of opening it to everyone is seen: a rule without `from`, one for every port, an ipBlock, any namespace.
    const policy = find(objs, 'NetworkPolicy', 'mcp-gateway');
    const opened = [
      { ports: [{ protocol: 'TCP', port }] },
      {},
      { from: [] },
      { from: [{ ipBlock: { cidr: '0.0.0.0/0' } }], ports: [{ protocol: 'TCP', port: 'management' }] },
      { from: [{ namespaceSelector: {} }], ports: [{ protocol: 'TCP', port }] },
    ];
    for (const rule of opened) {
      const broken = { ...policy, spec: { ...policy.spec, ingress: [...policy.spec.ingress, rule] } };
      const others = objs.filter((o) => o !== policy);
      expect(admittedSources([...others, broken], pod.metadata.labels, gateway, port), JSON.stringify(rule)).toContain('anywhere');
    }
  });

  it('no manifest carries a secret value; the checker sees a placeholder Secret; MCP clients must authenticate', () => {
    expect(secretsInManifests(objs)).toEqual([]);
    const placeholder = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'mcp-gateway' },
      stringData: { GATEWAY_MGMT_TOKEN: 'replace-with-a-long-random-token' },
    };
    expect(secretsInManifests([...objs, placeholder])).toEqual(['Secret mcp-gateway stringData.GATEWAY_MGMT_TOKEN (a placeholder)']);
    const config = parse(find(objs, 'ConfigMap').data['config.yaml']) as Obj;
    expect(config.incoming_auth.type).not.toBe('anonymous');
    expect(config.server.management.open).toBeUndefined();
    // The generated Secret (with-redis) holds what the operator wrote, and that is a token the gateway accepts.
    for (const secret of objs.filter((o) => o.kind === 'Secret')) {
      const token = Buffer.from(secret.data.GATEWAY_MGMT_TOKEN, 'base64').toString('utf8');
      expect(token).toBe(OPERATOR_INPUT.GATEWAY_MGMT_TOKEN);
      expect(managementTokenProblem(token)).toBeUndefined();
    }
  });

  it('drains within the grace period, runs non-root with a read-only root and no capabilities, with requests and limits', () => {
    const pod = find(objs, 'Deployment', 'mcp-gateway').spec.template.spec;
    const gateway = pod.containers.find((c: Obj) => c.name === 'gateway');
    const config = parse(find(objs, 'ConfigMap').data['config.yaml']) as Obj;
    const preStop = gateway.lifecycle.preStop.exec.command as string[];
    expect(preStop[0]).toBe('sleep');
    // SIGTERM comes after the preStop pause; the replica then drains (not ready, serving) before its shutdown timeout runs.
    const drainS = (config.server.shutdown_drain_s as number | undefined) ?? SERVER_DEFAULTS.shutdown_drain_s.default;
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(Number(preStop[1]) + drainS + config.server.shutdown_timeout_s);
    // The drain outlasts two readiness checks that fail: the pod is out of the Service before it refuses anything.
    expect(drainS).toBeGreaterThanOrEqual(2 * gateway.readinessProbe.periodSeconds * gateway.readinessProbe.failureThreshold);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532 });
    expect(gateway.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    for (const kind of ['requests', 'limits']) expect(Object.keys(gateway.resources[kind]).sort(), kind).toEqual(['cpu', 'memory']);
  });

  it('mounts the ConfigMap (key config.yaml) where the image reads it; the state volume is writable; the Secret feeds the tokens and REDIS_URL', () => {
    const pod = find(objs, 'Deployment', 'mcp-gateway').spec.template.spec;
    const gateway = pod.containers.find((c: Obj) => c.name === 'gateway');
    const configMap = find(objs, 'ConfigMap');
    expect(Object.keys(configMap.data)).toEqual(['config.yaml']);
    const volume = pod.volumes.find((v: Obj) => v.configMap);
    expect(volume.configMap.name).toBe(configMap.metadata.name);
    const mount = gateway.volumeMounts.find((m: Obj) => m.name === volume.name);
    const entrypoint = /ENTRYPOINT\s+(\[.*\])/.exec(readFileSync(join(ROOT, 'Containerfile'), 'utf8'))![1]!;
    expect(JSON.parse(entrypoint)).toContain(`${mount.mountPath}/config.yaml`);
    const stateDir = gateway.env.find((e: Obj) => e.name === 'GATEWAY_STATE_DIR').value;
    const stateMount = gateway.volumeMounts.find((m: Obj) => m.mountPath === stateDir);
    expect(pod.volumes.find((v: Obj) => v.name === stateMount.name).emptyDir).toBeDefined();
    const config = parse(configMap.data['config.yaml']) as Obj;
    expect(config.audit.file.startsWith(`${stateDir}/`)).toBe(true);
    // The operator creates the Secret (base, production), or with-redis generates it from the operator's secret.env.
    const secret = objs.find((o) => o.kind === 'Secret');
    expect(secret === undefined).toBe(dir !== 'overlays/with-redis');
    for (const name of Object.keys(OPERATOR_INPUT)) {
      const ref = gateway.env.find((e: Obj) => e.name === name).valueFrom.secretKeyRef;
      expect(ref).toEqual({ name: secret?.metadata.name ?? 'mcp-gateway', key: name });
      if (secret) expect(Object.keys(secret.data)).toContain(ref.key);
    }
    expect(gateway.env.find((e: Obj) => e.name === 'GATEWAY_REPLICA_ID').valueFrom.fieldRef.fieldPath).toBe('metadata.name');
  });

  it("the ConfigMap's config.yaml passes `gateway config validate`", () => {
    const dirOut = mkdtempSync(join(tmpdir(), 'gw-k8s-'));
    const file = join(dirOut, 'config.yaml');
    writeFileSync(file, find(objs, 'ConfigMap').data['config.yaml']);
    // The values the pod's environment gets from the Secret.
    const run = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli', 'gateway.js'), 'config', 'validate', file], {
      encoding: 'utf8',
      env: { ...process.env, ...OPERATOR_INPUT },
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(parse(readFileSync(file, 'utf8')).sessions.store).toBe('redis');
  });
});

describe('deploy/kubernetes/overlays/with-redis', () => {
  it('renders only with the secret.env the operator writes: there is no default token', () => {
    const tree = committedCopy();
    try {
      const out = kustomize(tree, 'overlays/with-redis');
      expect(out.ok).toBe(false);
      expect(out.stderr).toContain('secret.env');
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  it('brings a Redis the Secret points at, reachable from the gateway pods only', () => {
    const objs = render('overlays/with-redis');
    const redis = find(objs, 'Service', 'redis');
    const url = new URL(Buffer.from(find(objs, 'Secret', 'mcp-gateway').data.REDIS_URL, 'base64').toString('utf8'));
    expect(url.hostname).toBe(redis.metadata.name);
    expect(Number(url.port)).toBe(redis.spec.ports[0].port);
    const redisPod = find(objs, 'Deployment', 'redis').spec.template;
    expect(selects(redis.spec.selector, redisPod.metadata.labels)).toBe(true);
    const policy = find(objs, 'NetworkPolicy', 'redis');
    const gatewayLabels = find(objs, 'Deployment', 'mcp-gateway').spec.template.metadata.labels;
    expect(selects(policy.spec.ingress[0].from[0].podSelector.matchLabels, gatewayLabels)).toBe(true);
  });

  it("keeps Redis's data across a restart: the append-only file on a persistent volume", () => {
    const objs = render('overlays/with-redis');
    const redis = find(objs, 'Deployment', 'redis').spec;
    const container = redis.template.spec.containers[0];
    const arg = (name: string) => container.args[container.args.indexOf(name) + 1];
    expect(arg('--appendonly')).toBe('yes');
    const mount = container.volumeMounts.find((m: Obj) => m.mountPath === arg('--dir'));
    const volume = redis.template.spec.volumes.find((v: Obj) => v.name === mount.name);
    expect(volume.persistentVolumeClaim, 'not an emptyDir: it would go with the pod').toBeDefined();
    expect(find(objs, 'PersistentVolumeClaim', volume.persistentVolumeClaim.claimName).spec.accessModes).toEqual(['ReadWriteOnce']);
    expect(redis.strategy.type).toBe('Recreate');
  });
});

describe('deploy/', () => {
  it('no committed file is a Secret with data, or sets a token to a value', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : /\.(ya?ml|env)$/.test(f) ? [join(dir, f)] : []));
    const committed = files(join(ROOT, 'deploy')).filter((f) => !f.endsWith('secret.env'));
    expect(committed.length).toBeGreaterThan(5);
    const found = committed.flatMap((f) =>
      parseAllDocuments(readFileSync(f, 'utf8'))
        .map((d) => d.toJS() as Obj | null)
        .filter((o): o is Obj => o !== null && typeof o === 'object')
        .flatMap((o) => secretsInManifests([o]).map((w) => `${relative(ROOT, f)}: ${w}`)),
    );
    expect(found).toEqual([]);
  });
});

describe('docs/scale-out.md', () => {
  const text = readFileSync(join(ROOT, 'docs', 'scale-out.md'), 'utf8');

  it('the sample HAProxy config is valid and sends a refused request to another replica', () => {
    const sample = /`haproxy\.cfg`[\s\S]*?```\n([\s\S]*?)```/.exec(text)![1]!;
    const dir = mkdtempSync(join(tmpdir(), 'gw-haproxy-'));
    writeFileSync(join(dir, 'haproxy.cfg'), sample);
    const haproxy = spawnSync(process.env.HAPROXY ?? 'haproxy', ['-c', '-f', join(dir, 'haproxy.cfg')], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin` },
    });
    expect(haproxy.status, haproxy.stdout + haproxy.stderr).toBe(0);
    expect(sample).toMatch(/^\s*option redispatch$/m);
    expect(sample).toMatch(/^\s*retry-on conn-failure$/m);
    expect(sample).toMatch(/^\s*retries [1-9]/m);
  });

  it('the sample Redis keeps its data across a restart', () => {
    const redis = /^.*redis-server .*$/m.exec(text)![0];
    expect(redis).toMatch(/--appendonly yes/);
    expect(redis).not.toMatch(/--save ''/);
  });
});

describe('Containerfile', () => {
  const text = readFileSync(join(ROOT, 'Containerfile'), 'utf8');
  const stages = text.split(/^FROM /m).slice(1);

  it('is multi-stage on a BASE_IMAGE of the Node major CI tests on (node:22-slim by default); the final stage has production dependencies only and runs as uid 65532', () => {
    const major = readFileSync(join(ROOT, '.node-version'), 'utf8').trim().split('.')[0];
    expect(text).toMatch(new RegExp(`^ARG BASE_IMAGE=docker\\.io/library/node:${major}-slim$`, 'm'));
    // package.json's engines start at that major too.
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node).toMatch(new RegExp(`^>=${major}\\.`));
    expect(stages.length).toBeGreaterThanOrEqual(3);
    // One stage from the build argument, the CA step in it; every other stage starts from that one.
    expect(stages[0]!.startsWith('${BASE_IMAGE} AS base')).toBe(true);
    expect(stages[0]).toMatch(/^ARG EXTRA_CA_CERTS=/m);
    for (const stage of stages.slice(1)) expect(stage.startsWith('base')).toBe(true);
    // Plain node and npm only: a base made from a host has no shell tools (mkdir, chown, rm…).
    for (const run of text.match(/^RUN .*$/gm) ?? []) expect(run, run).toMatch(/^RUN \["(node|npm)", /);
    const final = stages.at(-1)!;
    expect(final).toMatch(/^USER 65532:65532$/m);
    expect(final).not.toMatch(/"npm", "ci"/);
    expect(text).toMatch(/"npm", "ci", "--omit=dev"/);
    // Only compiled gateway code goes in: no sources, tests or bench.
    for (const line of final.split('\n').filter((l) => l.startsWith('COPY --from=build')))
      expect(line).toMatch(/\/src\/dist\/(schemas|controller|runtime|api|app|cli) /);
    expect(final).toMatch(/GATEWAY_STATE_DIR=\/var\/lib\/mcp-gateway/);
    expect(final).toMatch(/^VOLUME \["\/var\/lib\/mcp-gateway"\]$/m);
  });
});
