// An operator's production with two connectors, end to end: values/environments/production.yaml
// lists the foreign exchange and screening connectors, `engine deploy-files` derives the overlay,
// plain `kubectl kustomize` renders it, and the pod is replayed on this machine from the rendered
// objects alone: its values folder holds only what the ConfigMap mounts, its secrets folder only the
// two keys the Deployment requires, its environment what the Deployment sets. On the overlay's
// replica count and the memory store the engine refuses to start with one line naming what to set;
// with the shared store (Redis at 127.0.0.1:6379, PostgreSQL at 127.0.0.1:5432) it starts and is
// ready; told of one replica only, it starts on memory and warns once.

import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { dropSchema, PG_URL, uniqueSchema } from '../store/helpers.ts';
import { REDIS_URL } from '../replicas/helpers.ts';
import { IN_CI, ROOT, commandExists, run, runOk, skipLoudly, spawnEngine, waitFor } from './support.ts';

const hasKubectl = commandExists('kubectl');
const skip = !hasKubectl && skipLoudly('production with two connectors', 'kubectl is not installed');

if (IN_CI && !hasKubectl) {
  it('kubectl is installed (CI renders the manifests)', () => {
    expect.fail('kubectl is not installed: the Kubernetes manifests cannot be rendered');
  });
}

const tmp = mkdtempSync(join(tmpdir(), 'production-two-'));
const schema = uniqueSchema('twoconn');
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  await dropSchema(schema);
});

describe.skipIf(skip)('production running two connectors with their two secrets', () => {
  const deploy = join(tmp, 'deploy');
  const values = join(tmp, 'values');
  cpSync(join(ROOT, 'deploy'), deploy, { recursive: true });
  cpSync(join(ROOT, 'values'), values, { recursive: true, dereference: true });
  writeFileSync(
    join(values, 'environments', 'production.yaml'),
    `connectors:
  - hubvendor-foreign-exchange
  - screenvendor-screening
engine:
  store:
    postgres:
      schema: ${schema}
keys:
  hubvendor-base-url: https://hub.example.test
  screenvendor-base-url: https://screening.example.test
properties:
  '*':
    asb.producer.apiUri: http://127.0.0.1:9/events
`,
  );
  const pod = join(tmp, 'pod');
  let replicas = '';

  it('engine deploy-files derives the overlay: these two connectors, two secret keys', async () => {
    const r = await runOk(process.execPath, ['bin/engine.js', 'deploy-files', '--values', values, '--deploy', deploy], {
      cwd: ROOT,
    });
    expect(r.stdout).toContain(
      'production: connectors hubvendor-foreign-exchange, screenvendor-screening; secrets screenvendor-api-key, screenvendor-webhook-secret\n',
    );
  });

  it('plain kubectl kustomize renders it: their values files and their two secrets, nothing else', async () => {
    const r = await runOk('kubectl', ['kustomize', join(deploy, 'overlays', 'production')], { cwd: tmp });
    const objects = parseAllDocuments(r.stdout).map((d) => d.toJS());
    const cm = objects.find((o) => o.kind === 'ConfigMap');
    const dep = objects.find((o) => o.kind === 'Deployment');
    const container = dep.spec.template.spec.containers[0];
    const secrets = dep.spec.template.spec.volumes.find((v: any) => v.name === 'secrets').secret;
    expect(Object.keys(cm.data).sort()).toEqual([
      'environments-production.yaml',
      'foreign-exchange-v1.values.yaml',
      'screening-v2.values.yaml',
    ]);
    expect(secrets.items.map((i: any) => i.key)).toEqual(['screenvendor-api-key', 'screenvendor-webhook-secret']);
    // the pod, on this machine: what the mounts put under /app/values, and a Secret with the two keys
    for (const m of container.volumeMounts.filter((v: any) => v.name === 'values')) {
      const file = join(pod, 'values', m.mountPath.replace(/^\/app\/values\//, ''));
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, cm.data[m.subPath]);
    }
    mkdirSync(join(pod, 'secrets'));
    writeFileSync(join(pod, 'secrets', 'screenvendor-api-key'), 'screening-api-key-for-tests');
    writeFileSync(join(pod, 'secrets', 'screenvendor-webhook-secret'), 'whsec_c2NyZWVuaW5nLWZvci10ZXN0cw==');
    replicas = container.env.find((e: any) => e.name === 'ENGINE_REPLICAS').value;
    expect(Number(replicas)).toBeGreaterThan(1);
  });

  const args = () => [
    'bin/engine.js',
    'run',
    'routes/',
    '--env',
    'production',
    '--values',
    join(pod, 'values'),
    '--secrets',
    join(pod, 'secrets'),
    '--port',
    '0',
  ];
  const environment = (add: Record<string, string>): NodeJS.ProcessEnv => {
    const env = { ...process.env, ...add };
    for (const k of ['ENGINE_STORE_REDIS_URL', 'ENGINE_STORE_POSTGRES_URL', 'ENGINE_STORE_POSTGRES_URL_FILE'])
      if (!(k in add)) delete env[k];
    return env;
  };

  it("on the overlay's replicas and the memory store it refuses to start, in one line saying what to set", async () => {
    const r = await run(process.execPath, args(), { cwd: ROOT, env: environment({ ENGINE_REPLICAS: replicas }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `engine: environment 'production' runs ${replicas} replicas (ENGINE_REPLICAS) but the keys of screening-webhook are in this process's memory and the outbox of screening-webhook is in this process's embedded store: set ENGINE_STORE_REDIS_URL (or engine.store.redis.url) and ENGINE_STORE_POSTGRES_URL (or engine.store.postgres.url) so that they share them (docs/operations.md, "Replicas and the store")\n`,
    );
  });

  it('with the shared store (Redis and PostgreSQL) it starts, runs the two connectors and is ready', async () => {
    const e = spawnEngine(process.execPath, args(), {
      cwd: ROOT,
      env: environment({
        ENGINE_REPLICAS: replicas,
        ENGINE_STORE_REDIS_URL: REDIS_URL,
        ENGINE_STORE_POSTGRES_URL: PG_URL,
      }),
    });
    try {
      let url = '';
      await waitFor(
        'engine started',
        async () => {
          const started = /\{[^\n]*"msg":"engine started"[^\n]*\}/.exec(e.output());
          if (!started) return false;
          const line = JSON.parse(started[0]);
          url = line.url;
          expect(line.routes).toBe(7); // get-exchange-rate and the six screening routes
          return true;
        },
        60_000,
        e.child,
        e.output,
      );
      await waitFor(
        'ready',
        async () => (await fetch(`${url}/health/ready`)).status === 200,
        30_000,
        e.child,
        e.output,
      );
      expect(e.output()).not.toContain('ONE REPLICA ONLY');
    } finally {
      await e.stop();
    }
  });

  it('told of one replica, it starts on the memory store and warns once, loudly', async () => {
    const e = spawnEngine(process.execPath, args(), {
      cwd: ROOT,
      env: environment({ ENGINE_REPLICAS: '1', ENGINE_STORE_POSTGRES_URL: PG_URL }),
    });
    try {
      await waitFor('engine started', async () => e.output().includes('"engine started"'), 60_000, e.child, e.output);
      const warnings = e
        .output()
        .split('\n')
        .filter((l) => l.includes('ONE REPLICA ONLY'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0])).toMatchObject({
        level: 'warn',
        msg: expect.stringContaining(
          "the keys of screening-webhook are in this process's memory; a second replica would process a redelivered webhook again. Set ENGINE_STORE_REDIS_URL",
        ),
      });
    } finally {
      await e.stop();
    }
  });
});
