/**
 * Issue 23: the Kubernetes manifests (deploy/kubernetes) and the image
 * (Containerfile). Each kustomization is rendered with the real
 * `kubectl kustomize` (offline) and every object validated against the
 * Kubernetes API schemas (npm `kubernetes-models`); then what must agree
 * does: selectors and labels, probe paths and ports and the config's port,
 * the grace period with the preStop pause, the drain and the shutdown timeout, the mounted ConfigMap and the
 * image's --config, the Secret's keys and the env, and the ConfigMap's
 * config.yaml passes `gateway config validate`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from '../../fixtures/spawn.js';
import { ConfigSchema } from '../../../schemas/config.js';

type Obj = Record<string, any>;

const ROOT = repoRoot();
const SERVER_DEFAULTS = (ConfigSchema.properties.server as unknown as { properties: Record<string, { default: number }> }).properties;
const KUBECTL = process.env.KUBECTL ?? 'kubectl';
const KUSTOMIZATIONS = ['base', 'overlays/production', 'overlays/with-redis'];

function render(dir: string): Obj[] {
  const yaml = execFileSync(KUBECTL, ['kustomize', join(ROOT, 'deploy', 'kubernetes', dir)], { encoding: 'utf8' });
  return parseAllDocuments(yaml).map((d) => d.toJS() as Obj);
}

/** The kubernetes-models class of an object (`apps/v1` Deployment → kubernetes-models/apps/v1/Deployment). */
async function modelOf(obj: Obj): Promise<new (data: Obj) => { validate(): void }> {
  const [group, version] = String(obj.apiVersion).includes('/') ? String(obj.apiVersion).split('/') : [undefined, String(obj.apiVersion)];
  const module = (await import(`kubernetes-models/${group ? `${group}/` : ''}${version}/${obj.kind}`)) as Record<string, unknown>;
  return module[obj.kind] as new (data: Obj) => { validate(): void };
}

const find = (objs: Obj[], kind: string, name?: string) => {
  const found = objs.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0]!;
};

const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

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

  it('selectors match the pod labels; the Service, probes and network policy use the port the config listens on', () => {
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
    const port = gateway.ports.find((p: Obj) => p.name === 'http');
    expect(config.server.host).toBe('0.0.0.0');
    expect(port.containerPort).toBe(config.server.port);
    for (const probe of ['startupProbe', 'livenessProbe']) expect(gateway[probe].httpGet, probe).toEqual({ path: '/manage/v1/health', port: 'http' });
    expect(gateway.readinessProbe.httpGet).toEqual({ path: '/manage/v1/ready', port: 'http' });
    expect(find(objs, 'Service', 'mcp-gateway').spec.ports[0].targetPort).toBe('http');
    expect(policy.spec.ingress.flatMap((r: Obj) => r.ports.map((p: Obj) => p.port))).toContain(config.server.port);
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

  it('mounts the ConfigMap (key config.yaml) where the image reads it; the state volume is writable; the Secret feeds the token and REDIS_URL', () => {
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
    // Production leaves the Secret out (the operator creates it); elsewhere it has the keys the env reads.
    const secret = objs.find((o) => o.kind === 'Secret' && o.metadata.name === 'mcp-gateway');
    expect(secret === undefined).toBe(dir === 'overlays/production');
    for (const name of ['GATEWAY_MGMT_TOKEN', 'REDIS_URL']) {
      const ref = gateway.env.find((e: Obj) => e.name === name).valueFrom.secretKeyRef;
      expect(ref).toEqual({ name: 'mcp-gateway', key: name });
      if (secret) expect(Object.keys(secret.stringData)).toContain(ref.key);
    }
    expect(gateway.env.find((e: Obj) => e.name === 'GATEWAY_REPLICA_ID').valueFrom.fieldRef.fieldPath).toBe('metadata.name');
  });

  it("the ConfigMap's config.yaml passes `gateway config validate`", () => {
    const dirOut = mkdtempSync(join(tmpdir(), 'gw-k8s-'));
    const file = join(dirOut, 'config.yaml');
    writeFileSync(file, find(objs, 'ConfigMap').data['config.yaml']);
    const redisUrl = objs.find((o) => o.kind === 'Secret')?.stringData.REDIS_URL ?? 'rediss://:a-password@redis.example.internal:6380/0';
    const run = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli', 'gateway.js'), 'config', 'validate', file], {
      encoding: 'utf8',
      env: { ...process.env, REDIS_URL: redisUrl },
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(parse(readFileSync(file, 'utf8')).sessions.store).toBe('redis');
  });
});

describe('deploy/kubernetes/overlays/with-redis', () => {
  it('brings a Redis the Secret points at, reachable from the gateway pods only', () => {
    const objs = render('overlays/with-redis');
    const redis = find(objs, 'Service', 'redis');
    const url = new URL(find(objs, 'Secret', 'mcp-gateway').stringData.REDIS_URL);
    expect(url.hostname).toBe(redis.metadata.name);
    expect(Number(url.port)).toBe(redis.spec.ports[0].port);
    const redisPod = find(objs, 'Deployment', 'redis').spec.template;
    expect(selects(redis.spec.selector, redisPod.metadata.labels)).toBe(true);
    const policy = find(objs, 'NetworkPolicy', 'redis');
    const gatewayLabels = find(objs, 'Deployment', 'mcp-gateway').spec.template.metadata.labels;
    expect(selects(policy.spec.ingress[0].from[0].podSelector.matchLabels, gatewayLabels)).toBe(true);
  });
});

describe('Containerfile', () => {
  const text = readFileSync(join(ROOT, 'Containerfile'), 'utf8');
  const stages = text.split(/^FROM /m).slice(1);

  it('is multi-stage on node:22-slim; the final stage has production dependencies only and runs as uid 65532', () => {
    expect(text).toMatch(/^ARG NODE_IMAGE=docker\.io\/library\/node:22-slim$/m);
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage.startsWith('${NODE_IMAGE}')).toBe(true);
    const final = stages.at(-1)!;
    expect(final).toMatch(/^USER 65532:65532$/m);
    expect(final).not.toMatch(/npm ci(?!.*--omit=dev)/);
    expect(text).toMatch(/npm ci --omit=dev/);
    // Only compiled gateway code goes in: no sources, tests or bench.
    for (const line of final.split('\n').filter((l) => l.startsWith('COPY --from=build')))
      expect(line).toMatch(/\/src\/dist\/(schemas|controller|runtime|api|app|cli) /);
    expect(final).toMatch(/GATEWAY_STATE_DIR=\/var\/lib\/mcp-gateway/);
    expect(final).toMatch(/^VOLUME \["\/var\/lib\/mcp-gateway"\]$/m);
  });
});
