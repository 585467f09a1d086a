// The Kubernetes manifests as a cluster would receive them: each overlay rendered offline by plain
// `kubectl kustomize` (no flag, as `kubectl apply -k`, Argo CD and Flux render) and its objects
// checked against the engine (probes, graceful shutdown, the CLI arguments, the values files of the
// connectors its environment runs byte for byte, the secret keys those files name).

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { envVarName, isSecretKey } from '../../engine/config/env-keys.ts';
import { loadEnvironment } from '../../engine/config/values.ts';
import { deriveDeployment, type Deployment } from '../../engine/cli/deploy-files.ts';
import { gatewayExtension } from '../../engine/gateway/index.ts';
import { parseDockerfile } from './dockerfile.ts';
import { IN_CI, ROOT, commandExists, run, skipLoudly } from './support.ts';

const ENVIRONMENTS = ['development', 'staging', 'production'];
const VALUES = join(ROOT, 'values');
const hasKubectl = commandExists('kubectl');
const skip = !hasKubectl && skipLoudly('kustomize render test', 'kubectl is not installed');

/** Where the image keeps the project (the runtime stage's WORKDIR): values/ is mounted below it. */
const workdir = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))
  .at(-1)!
  .steps.filter((s) => s.op === 'WORKDIR')
  .at(-1)!.args;

function render(env: string): any[] {
  const r = spawnSync('kubectl', ['kustomize', join(ROOT, 'deploy/overlays', env)], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`kubectl kustomize deploy/overlays/${env}: ${r.stderr}`);
  return parseAllDocuments(r.stdout).map((d) => d.toJS());
}

/** What `engine deploy-files` derives for the environment: its connectors' values files and secret keys. */
function derive(env: string): Promise<Deployment> {
  return deriveDeployment({ routes: ['routes'], env, root: ROOT, extensions: [gatewayExtension({ audit: false })] });
}

/** Environmental keys named by `${key}` in a text (a values file as the ConfigMap carries it). */
function referencedKeys(text: string): string[] {
  return [...text.matchAll(/\$\{([A-Za-z0-9_.-]+)\}/g)].map((m) => m[1]);
}

it('the committed Kustomize components are what `engine deploy-files` derives (else: run it and commit)', async () => {
  const r = await run(process.execPath, ['bin/engine.js', 'deploy-files', '--check'], { cwd: ROOT });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/up to date\n$/);
});

if (IN_CI && !hasKubectl) {
  it('kubectl is installed (CI renders the manifests)', () => {
    expect.fail('kubectl is not installed: the Kubernetes manifests cannot be rendered');
  });
}

describe.skipIf(skip)('deploy/ rendered by kubectl kustomize', () => {
  describe.each(ENVIRONMENTS)('overlay %s', (env) => {
    const objects = hasKubectl ? render(env) : [];
    const one = (kind: string) => {
      const found = objects.filter((o) => o.kind === kind);
      expect(found, kind).toHaveLength(1);
      return found[0];
    };
    const deployment = () => one('Deployment');
    const pod = () => deployment().spec.template;
    const container = () => pod().spec.containers.find((c: any) => c.name === 'engine');
    const volume = (name: string) => pod().spec.volumes.find((v: any) => v.name === name);
    const settings = loadEnvironment(VALUES, env).engine;

    // development runs one replica, without an autoscaler
    const autoscaled = env !== 'development';

    it('renders a Deployment, Service, ConfigMap, PodDisruptionBudget, HorizontalPodAutoscaler and no Secret values', () => {
      expect(objects.map((o) => o.kind).sort()).toEqual(
        [
          'ConfigMap',
          'Deployment',
          ...(autoscaled ? ['HorizontalPodAutoscaler'] : []),
          'PodDisruptionBudget',
          'Service',
        ].sort(),
      );
    });

    it('tells the engine the most replicas it runs (ENGINE_REPLICAS); with more than one, the shared store comes from a Secret', () => {
      const env_ = (name: string) => (container().env ?? []).find((e: any) => e.name === name);
      const most = autoscaled ? one('HorizontalPodAutoscaler').spec.maxReplicas : deployment().spec.replicas;
      expect(env_('ENGINE_REPLICAS').value).toBe(String(most));
      if (most === 1) return;
      for (const [name, key] of [
        ['ENGINE_STORE_REDIS_URL', 'redis-url'],
        ['ENGINE_STORE_POSTGRES_URL', 'postgres-url'],
      ]) {
        // never a literal: the URL carries the password
        expect(env_(name), name).toEqual({
          name,
          valueFrom: { secretKeyRef: { name: 'bank-integration-engine-store', key } },
        });
      }
    });

    it(`runs \`engine run routes/ --env ${env} --secrets <the mounted secret folder>\` as PID 1`, () => {
      const c = container();
      expect(c.command).toEqual(['node', 'bin/engine.js']);
      expect(c.args.slice(0, 5)).toEqual(['run', 'routes/', '--env', env, '--secrets']);
      const secretsMount = c.volumeMounts.find((m: any) => m.name === 'secrets');
      expect(c.args[5]).toBe(secretsMount.mountPath);
      // a pod is reached from outside itself: the engine's default listen address is 127.0.0.1
      expect(c.args.join(' ')).toContain('--host 0.0.0.0');
      expect(c.args.join(' ')).toContain(`--port ${c.ports[0].containerPort}`);
    });

    it('probes liveness on /health/live and readiness on /health/ready at the engine port', () => {
      const c = container();
      expect(c.ports).toEqual([{ name: 'http', containerPort: 8080 }]);
      expect(c.livenessProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
      expect(c.readinessProbe.httpGet).toEqual({ path: '/health/ready', port: 'http' });
    });

    it('gives the graceful shutdown its time: preStop, then engine.server.shutdownTimeout, within the grace period', () => {
      const [cmd, seconds] = container().lifecycle.preStop.exec.command;
      expect(cmd).toBe('sleep');
      const drain = settings.server.shutdownTimeout / 1000;
      // a margin of at least 2 s for the sources and connections to close after the drain
      expect(pod().spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(Number(seconds) + drain + 2);
    });

    it('mounts the values files of the connectors its environment runs and its environment file, byte for byte, and nothing else', async () => {
      const d = await derive(env);
      const cms = objects.filter((o) => o.kind === 'ConfigMap');
      expect(cms, "one ConfigMap: the other environments' are not part of this one").toHaveLength(1);
      const cm = cms[0];
      expect(volume('values').configMap.name).toBe(cm.metadata.name);
      const root = `${workdir}/values`;
      const mounts = container().volumeMounts.filter((m: any) => m.name === 'values');
      expect(d.valuesFiles[0]).toBe(`environments/${env}.yaml`);
      expect(mounts.map((m: any) => m.mountPath).sort()).toEqual(d.valuesFiles.map((f) => `${root}/${f}`).sort());
      for (const f of d.valuesFiles) {
        const m = mounts.find((x: any) => x.mountPath === `${root}/${f}`);
        expect(m.readOnly).toBe(true);
        expect(cm.data[m.subPath], `values/${f}`).toBe(readFileSync(join(VALUES, f), 'utf8'));
      }
      expect(Object.keys(cm.data).sort()).toEqual(mounts.map((m: any) => m.subPath).sort());
      // the sandbox's demo traffic is no connector of a cluster environment
      expect(d.valuesFiles).not.toContain('sandbox-demo.values.yaml');
      expect(Object.keys(cm.data).join(' ')).not.toMatch(/sandbox/);
    });

    it('requires exactly the secret keys its mounted values files name, as files, by name only', async () => {
      const d = await derive(env);
      const cm = one('ConfigMap');
      const envKeys = loadEnvironment(VALUES, env).keys;
      const named = Object.entries(cm.data)
        .filter(([k]) => k.endsWith('.values.yaml'))
        .flatMap(([, text]) => referencedKeys(text as string));
      const secret = [...new Set(named)].filter((k) => isSecretKey(k) && !(k in envKeys)).sort();
      expect(secret.length).toBeGreaterThan(0);
      expect(d.secrets).toEqual(secret);
      const s = volume('secrets').secret;
      expect(s.items.map((i: any) => i.key).sort()).toEqual(secret);
      for (const i of s.items) expect(i.path).toBe(i.key);
      // no secret travels in the pod spec
      const envNames = (container().env ?? []).map((e: any) => e.name);
      for (const k of secret) expect(envNames).not.toContain(envVarName(k));
      for (const e of container().env ?? []) expect(e.value ?? '', e.name).not.toMatch(/:\/\/[^/]*:[^@/]*@/);
    });

    it('sets a valid log level, resources, a non-root user and a read-only root file system', () => {
      const c = container();
      expect(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).toContain(
        c.env.find((e: any) => e.name === 'LOG_LEVEL').value,
      );
      expect(c.resources.requests.cpu).toBeDefined();
      expect(c.resources.limits.memory).toBeDefined();
      expect(pod().spec.securityContext.runAsNonRoot).toBe(true);
      expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
    });

    it('is scraped by Prometheus on /metrics at the engine port', () => {
      expect(pod().metadata.annotations).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '8080',
        'prometheus.io/path': '/metrics',
      });
    });

    it('selects its pods from the Service and the PodDisruptionBudget; the autoscaler (where there is one) scales the Deployment from its replica count', () => {
      const labels = pod().metadata.labels;
      for (const sel of [
        one('Service').spec.selector,
        one('PodDisruptionBudget').spec.selector.matchLabels,
        deployment().spec.selector.matchLabels,
      ]) {
        expect(Object.keys(sel).length).toBeGreaterThan(0);
        expect(labels).toMatchObject(sel);
      }
      expect(one('Service').spec.ports[0].targetPort).toBe('http');
      if (!autoscaled) return;
      const hpa = one('HorizontalPodAutoscaler');
      expect(hpa.spec.scaleTargetRef).toEqual({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: deployment().metadata.name,
      });
      expect(deployment().spec.replicas).toBe(hpa.spec.minReplicas);
      expect(hpa.spec.maxReplicas).toBeGreaterThanOrEqual(hpa.spec.minReplicas);
    });
  });
});
