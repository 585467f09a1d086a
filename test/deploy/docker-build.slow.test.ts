// Slow (installs from the npm registry and compiles; about a minute): the Dockerfile's own build
// and start commands, run without Docker. Each stage gets a directory standing for its file system
// (WORKDIR /app is <stage>/app); COPY, ENV, RUN, HEALTHCHECK and CMD are carried out as written,
// then the runtime stage starts like `docker run -e ENGINE_ENV=sandbox -e PORT=...` and must be
// healthy, answer an FX request through the sandbox and stop cleanly on SIGTERM. The stages run
// on the Node.js that runs the test: .ci/run runs it on the image's line too (dockerfile.test.ts).

import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyArgs, envPairs, execForm, parseDockerfile } from './dockerfile.ts';
import {
  ROOT,
  exchangeRate,
  freePort,
  ready,
  registryReachable,
  run,
  runOk,
  skipLoudly,
  spawnEngine,
  waitFor,
  type EngineProcess,
} from './support.ts';

const skip = !registryReachable() && skipLoudly('Dockerfile build test', 'npm cannot reach its registry');

interface Built {
  base: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
  healthcheck: string[];
  cmd: string[];
}

/** Carries out every stage; returns the last (the image). */
async function buildStages(): Promise<Built> {
  const base = mkdtempSync(join(tmpdir(), 'engine-docker-'));
  // one npm cache for the build, inside the temp dir: the Dockerfile cleans its cache, not ours
  const npmCache = join(base, 'npm-cache');
  const stages = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  const roots = new Map<string, string>();
  let last: Built | undefined;
  for (const [i, stage] of stages.entries()) {
    const root = join(base, stage.name ?? String(i));
    const b: Built = { base, root, workdir: '/', env: {}, healthcheck: [], cmd: [] };
    const at = (p: string) => (p.startsWith('/') ? join(root, p) : join(root, b.workdir, p));
    for (const s of stage.steps) {
      if (s.op === 'WORKDIR') {
        b.workdir = s.args;
        mkdirSync(at('.'), { recursive: true });
      } else if (s.op === 'ENV') Object.assign(b.env, envPairs(s.args));
      else if (s.op === 'COPY') {
        const c = copyArgs(s.args);
        const from = c.from ? roots.get(c.from) : ROOT;
        if (!from) throw new Error(`Dockerfile:${s.line}: no stage ${c.from}`);
        for (const src of c.sources) {
          const dest = c.dest.endsWith('/') ? join(at(c.dest), src.split('/').pop()!) : at(c.dest);
          mkdirSync(dirname(dest), { recursive: true });
          cpSync(join(from, src), dest, { recursive: true });
        }
      } else if (s.op === 'RUN') {
        await runOk('/bin/sh', ['-c', s.args], {
          cwd: at('.'),
          env: { ...process.env, ...b.env, npm_config_cache: npmCache },
          timeoutMs: 300_000,
        });
      } else if (s.op === 'HEALTHCHECK') b.healthcheck = execForm(s.args.slice(s.args.indexOf('CMD ') + 4));
      else if (s.op === 'CMD') b.cmd = execForm(s.args);
      else if (!['USER', 'EXPOSE', 'ARG', 'LABEL'].includes(s.op))
        throw new Error(`Dockerfile:${s.line}: the test does not know ${s.op}`);
    }
    if (stage.name) roots.set(stage.name, root);
    last = b;
  }
  return last!;
}

describe.skipIf(skip)('slow: the Dockerfile build and start commands make a working engine', () => {
  let image: Built;
  let app: string;
  let engine: EngineProcess | undefined;
  let port: number;
  let containerEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    image = await buildStages();
    app = join(image.root, image.workdir);
    port = await freePort();
    // the container sees the image's ENV plus `-e`; PATH stands for the base image's
    containerEnv = {
      PATH: process.env.PATH,
      ...image.env,
      ENGINE_ENV: 'sandbox',
      PORT: String(port),
      LOG_LEVEL: 'warn',
    };
  }, 600_000);

  afterAll(async () => {
    await engine?.stop();
    if (image) rmSync(image.base, { recursive: true, force: true });
  });

  it('the image holds the build and production dependencies only', () => {
    // the bundle and the code cache the build stage wrote with the Node.js of the runtime stage
    // and the SBOM of the production dependencies the build wrote (sbom.test.ts)
    for (const f of ['dist/engine.cjs', 'dist/engine.cjs.cache', 'dist/sbom.cdx.json'])
      expect(existsSync(join(app, f)), f).toBe(true);
    expect(existsSync(join(app, 'engine'))).toBe(false);
    for (const dev of ['tsx', 'typescript', 'vitest', 'esbuild'])
      expect(existsSync(join(app, 'node_modules', dev)), dev).toBe(false);
    for (const dir of ['routes', 'values', 'transforms', 'schemas']) expect(existsSync(join(app, dir)), dir).toBe(true);
  });

  it('the health check fails while nothing listens', async () => {
    const r = await run(image.healthcheck[0], image.healthcheck.slice(1), {
      cwd: app,
      env: containerEnv,
      timeoutMs: 10_000,
    });
    expect(r.code).not.toBe(0);
  });

  it('CMD starts an engine that the health check finds ready, which serves FX and stops on SIGTERM', async () => {
    engine = spawnEngine(image.cmd[0], image.cmd.slice(1), { cwd: app, env: containerEnv });
    await waitFor('health ready', ready(port), 60_000, engine.child, engine.output);
    const hc = await run(image.healthcheck[0], image.healthcheck.slice(1), {
      cwd: app,
      env: containerEnv,
      timeoutMs: 10_000,
    });
    expect(hc.code, hc.stderr).toBe(0);
    const fx = await exchangeRate(port);
    expect(fx.status, engine.output()).toBe(200);
    expect(fx.body).toMatchObject({ buyCurrency: 'EUR', sellCurrency: 'USD' });
    expect(typeof fx.body.buyRate).toBe('number');
    // exec in CMD: the signal reaches node itself, which drains and exits 0
    expect(await engine.stop()).toBe(0);
    engine = undefined;
  }, 90_000);
});
