// Slow (builds, packs and installs from the npm registry; about a minute): the package an operator
// installs. `npm pack` builds dist/ (prepack), the tarball installs into an empty directory with
// production dependencies only, and its `engine` runs lint, test and run with the shipped routes.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exchangeRate,
  freePort,
  projectCopy,
  ready,
  registryReachable,
  runOk,
  skipLoudly,
  spawnEngine,
  waitFor,
  type EngineProcess,
} from './support.ts';

const skip = !registryReachable() && skipLoudly('npm pack install test', 'npm cannot reach its registry');

describe.skipIf(skip)('slow: the npm package installs into an empty directory and runs', () => {
  let app: string;
  let pkg: string;
  let engineBin: string;
  let files: string[];
  let engine: EngineProcess | undefined;
  const temps: string[] = [];

  beforeAll(async () => {
    const src = projectCopy();
    const out = mkdtempSync(join(tmpdir(), 'engine-pack-'));
    temps.push(src, out);
    const packed = await runOk('npm', ['pack', '--json', '--pack-destination', out], { cwd: src, timeoutMs: 180_000 });
    // prepack's build prints before the JSON report
    const report = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('\n[') + 1)) as {
      filename: string;
      files: { path: string }[];
    }[];
    files = report[0].files.map((f) => f.path);
    app = mkdtempSync(join(tmpdir(), 'engine-app-'));
    temps.push(app);
    await runOk('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', join(out, report[0].filename)], {
      cwd: app,
      timeoutMs: 240_000,
    });
    pkg = join(app, 'node_modules', 'bank-integration-engine');
    engineBin = join(app, 'node_modules', '.bin', 'engine');
  }, 420_000);

  afterAll(async () => {
    await engine?.stop();
    for (const t of temps) rmSync(t, { recursive: true, force: true });
  });

  it('ships the build, the project files and no TypeScript sources or tests', () => {
    // the SBOM of the production dependencies too (sbom.test.ts)
    for (const f of [
      'dist/engine.cjs',
      'dist/engine.cjs.cache',
      'dist/sbom.cdx.json',
      'bin/engine.js',
      'bin/load-build.js',
    ])
      expect(files).toContain(f);
    for (const f of [
      'routes/hubvendor-foreign-exchange/get-exchange-rate.yaml',
      'values/foreign-exchange-v1.values.yaml',
      'values/environments/production.yaml',
      'values/gateway-approvals.yaml',
    ])
      expect(files).toContain(f);
    for (const dir of ['transforms/', 'schemas/']) expect(files.some((f) => f.startsWith(dir))).toBe(true);
    expect(
      files.filter((f) => f.endsWith('.ts') || f.startsWith('test/') || f.startsWith('bench/') || f.endsWith('.map')),
    ).toEqual([]);
  });

  it('installs without tsx or TypeScript', () => {
    expect(existsSync(join(app, 'node_modules', 'tsx'))).toBe(false);
    expect(existsSync(join(app, 'node_modules', 'typescript'))).toBe(false);
    expect(existsSync(join(app, 'node_modules', 'esbuild'))).toBe(false);
  });

  it('engine --version reads the package version', async () => {
    const r = await runOk(engineBin, ['--version'], { cwd: pkg, timeoutMs: 30_000 });
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version);
  });

  it('engine lint routes/ finds no problems', async () => {
    const r = await runOk(engineBin, ['lint', 'routes/'], { cwd: pkg, timeoutMs: 60_000 });
    expect(r.stdout).toContain('no problems');
  }, 90_000);

  it('engine test routes/ passes the shipped route tests', async () => {
    const r = await runOk(engineBin, ['test', 'routes/'], { cwd: pkg, timeoutMs: 120_000 });
    expect(r.stdout).toMatch(/[1-9]\d* passed, 0 failed/);
  }, 150_000);

  it('engine run routes/ --env sandbox serves an FX request and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    engine = spawnEngine(engineBin, ['run', 'routes/', '--env', 'sandbox', '--port', String(port)], {
      cwd: pkg,
      env: { ...process.env, LOG_LEVEL: 'warn' },
    });
    await waitFor('health ready', ready(port), 60_000, engine.child, engine.output);
    const fx = await exchangeRate(port);
    expect(fx.status, engine.output()).toBe(200);
    expect(fx.body).toMatchObject({ buyCurrency: 'EUR', sellCurrency: 'USD', transactionAmount: '1000.00' });
    expect(typeof fx.body.buyRate).toBe('number');
    expect(await engine.stop()).toBe(0);
    engine = undefined;
  }, 90_000);
});
