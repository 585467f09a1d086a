// `npm run build` bundles the engine and the sandbox (build/bundle.mjs) into one CommonJS file with
// V8's code cache beside it (bin/load-build.js). The bundle must do what the sources do: its parts
// a start may not need (the gateway, the console and its page, the simulators, the AMQP client)
// still load, tracing still reaches a collector through the OpenTelemetry SDK, and a broken project
// reads the same (the build checks configs with validators it carries as code). The cache is used
// only for the bundle and the V8 flags it was made with. Works on a copy of the project, like
// bin-entry.test.ts.

import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { isAscii } from 'node:buffer';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  exchangeRate,
  freePort,
  projectCopy,
  ready,
  ROOT,
  run,
  runOk,
  buildWithoutTypecheck,
  spawnEngine,
  waitFor,
  type EngineProcess,
} from './support.ts';

interface Span {
  name: string;
  spanId: string;
  parentSpanId?: string;
}

/** An OTLP/HTTP collector on a free port that keeps the spans it receives (JSON encoding). */
async function collector(): Promise<{ url: string; spans: Span[]; close: () => void }> {
  const spans: Span[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (b) => {
      body += b;
    });
    req.on('end', () => {
      const doc = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };
      for (const r of doc.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, close: () => server.close() };
}

describe('the build (bundled)', () => {
  let dir: string;
  let engine: EngineProcess | undefined;

  beforeAll(async () => {
    dir = projectCopy();
    await buildWithoutTypecheck(dir);
  }, 200_000);

  // a failed expectation leaves its engine running: stopped before the next test starts one
  afterEach(async () => {
    await engine?.stop();
    engine = undefined;
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * What bin/load-build.js made of the code cache when loading the copy's bundle, under these node
   * flags, and what the bundle left in `globalThis.__edited` (a hand edit's mark) as it ran.
   */
  const loadState = async (flags: string[] = []) => {
    // a script file: `node -e` would be a node option of its own (process.execArgv)
    writeFileSync(
      join(dir, 'cache-state.mjs'),
      "const { loadBuild } = await import('./bin/load-build.js');\n" +
        "console.log(JSON.stringify({ codeCache: loadBuild('dist/engine.cjs').codeCache, edited: globalThis.__edited }));\n",
    );
    const r = await runOk('node', [...flags, 'cache-state.mjs'], { cwd: dir, timeoutMs: 60_000 });
    return JSON.parse(r.stdout.trim().split('\n').pop()!) as { codeCache: string; edited?: string };
  };
  const cacheState = async (flags: string[] = []) => (await loadState(flags)).codeCache;

  /**
   * Runs `check` with the copy's bundle replaced by `edited` (its modification time set back to the
   * original's with `mtimeBack`), then puts the original back, which the next start no longer has a
   * cache of and the one after uses again.
   */
  const withBundle = async (edited: Buffer, check: () => Promise<void>, mtimeBack = false) => {
    const bundle = join(dir, 'dist/engine.cjs');
    const original = readFileSync(bundle);
    const { mtime } = statSync(bundle);
    writeFileSync(bundle, edited);
    if (mtimeBack) utimesSync(bundle, mtime, mtime);
    try {
      await check();
    } finally {
      writeFileSync(bundle, original);
    }
    expect(await cacheState()).toBe('none');
    expect(await cacheState()).toBe('used');
  };

  it('is one bundle with the code cache the build wrote, which a start uses, and the SBOM (sbom.test.ts)', async () => {
    const files = readdirSync(join(dir, 'dist'), { recursive: true })
      .map(String)
      .filter((f) => !f.startsWith('console'));
    expect(files.sort()).toEqual(['engine.cjs', 'engine.cjs.cache', 'sbom.cdx.json']);
    // ASCII, so that a start reads it as Latin-1 (a copy, not a UTF-8 decode): comments escaped too
    expect(isAscii(readFileSync(join(dir, 'dist/engine.cjs')))).toBe(true);
    expect(await cacheState()).toBe('used');
  }, 60_000);

  it('never runs a cache made for another bundle (edited in place, its modification time set back), damaged or made under other V8 flags, and writes one for the flags it runs with', async () => {
    const bundle = join(dir, 'dist/engine.cjs');
    const original = readFileSync(bundle);
    // the same length (all V8 itself checks), other code: the cache's CRC-32 tells them apart
    const edited = Buffer.from(
      original.toString('latin1').replace('Declarative YAML route engine', 'Declarative YAML route ENGINE'),
      'latin1',
    );
    expect(edited.length).toBe(original.length);
    expect(edited.equals(original)).toBe(false);
    // edited in place with its modification time set back: the cache names the bundle by its change
    // time and inode too (which spare a start the CRC-32), and no program sets a change time back
    await withBundle(
      edited,
      async () => {
        expect(await cacheState()).toBe('none');
        // that start wrote the cache of the edited bundle as it exited
        expect(await cacheState()).toBe('used');
      },
      true,
    );
    // damaged bytes (V8 itself would crash on them): the cache's own CRC-32 refuses it, the start rewrites it
    const cache = join(dir, 'dist/engine.cjs.cache');
    const damaged = readFileSync(cache);
    for (let i = 1000; i < damaged.length; i += 997) damaged[i] ^= 0xff;
    writeFileSync(cache, damaged);
    expect(await cacheState()).toBe('none');
    expect(await cacheState()).toBe('used');
    // a heap limit is a V8 flag: the build's cache does not fit; the first start writes its own
    const flagged = () => readdirSync(join(dir, 'dist')).filter((f) => /^engine\.cjs\.[0-9a-f]+\.cache$/.test(f));
    expect(flagged()).toEqual([]);
    expect(await cacheState(['--max-old-space-size=512'])).toBe('none');
    expect(flagged()).toHaveLength(1);
    expect(await cacheState(['--max-old-space-size=512'])).toBe('used');
    expect(await cacheState()).toBe('used');
    expect(existsSync(join(dir, 'dist/engine.cjs.cache'))).toBe(true);
  }, 90_000);

  it('reads a bundle that is not ASCII (a hand edit) as UTF-8, its characters whole', async () => {
    const original = readFileSync(join(dir, 'dist/engine.cjs'));
    const wrapper = '(function (exports, require, module, __filename, __dirname) {';
    expect(original.subarray(0, wrapper.length).toString('latin1')).toBe(wrapper);
    // a statement right inside the wrapper, with characters beyond ASCII in its string
    const edited = Buffer.concat([
      Buffer.from(`${wrapper}globalThis.__edited = '1 µs, 2 €';`),
      original.subarray(wrapper.length),
    ]);
    await withBundle(edited, async () => {
      expect(isAscii(edited)).toBe(false);
      expect(await loadState()).toEqual({ codeCache: 'none', edited: '1 µs, 2 €' });
      expect(await loadState()).toEqual({ codeCache: 'used', edited: '1 µs, 2 €' });
    });
  }, 60_000);

  it('serves every sandbox route: an FX rate, the gateway, the console page and its assets, the AMQP consumer ready', async () => {
    // the console serves the page the build wrote (it bundles console-ui/ itself only from the sources)
    appendFileSync(join(dir, 'dist/console/index.html'), '<!-- written by the build -->\n');
    const port = await freePort();
    engine = spawnEngine('node', ['bin/engine.js', 'run', 'routes/', '--env', 'sandbox', '--port', String(port)], {
      cwd: dir,
      env: { ...process.env, LOG_LEVEL: 'info' },
    });
    await waitFor('health ready', ready(port), 60_000, engine.child, engine.output);
    expect((await exchangeRate(port)).status, engine.output()).toBe(200);
    // the start says it read the build's code cache
    expect(engine.output()).toMatch(
      /"codeCache":"used".*"msg":"engine started"|"msg":"engine started".*"codeCache":"used"/,
    );
    const tools = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'ocp-gateway-subscription-key': 'sandbox-demo-subscription-key' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    }).then((r) => r.json() as Promise<{ result: { tools: { name: string }[] } }>);
    expect(tools.result.tools.map((t) => t.name)).toContain('getExchangeRate');
    const page = await fetch(`http://127.0.0.1:${port}/console/`).then((r) => r.text());
    expect(page).toContain('<!-- written by the build -->');
    const assets = [...page.matchAll(/\/console\/assets\/[^"]+/g)].map((m) => m[0]);
    expect(assets.length).toBe(2);
    for (const a of assets) expect((await fetch(`http://127.0.0.1:${port}${a}`)).status, a).toBe(200);
    const health = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
      (r) => r.json() as Promise<{ checks: Record<string, boolean> }>,
    );
    expect(health.checks['amqp:payment-status-inbound']).toBe(true);
    expect(await engine.stop()).toBe(0);
    engine = undefined;
  }, 90_000);

  it('traces an exchange to an OTLP collector: exchange, step and vendor call spans nested under the caller', async () => {
    const otlp = await collector();
    try {
      const port = await freePort();
      engine = spawnEngine('node', ['bin/engine.js', 'run', 'routes/', '--env', 'sandbox', '--port', String(port)], {
        cwd: dir,
        env: {
          ...process.env,
          LOG_LEVEL: 'warn',
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
          OTEL_BSP_SCHEDULE_DELAY: '100',
          ENGINE_CONSOLE_ENABLED: 'false',
        },
      });
      await waitFor('health ready', ready(port), 60_000, engine.child, engine.output);
      const res = await fetch(`http://127.0.0.1:${port}/foreign-exchange/exchange-rates`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        },
        body: JSON.stringify({ buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' }),
      });
      expect(res.status).toBe(200);
      const named = (name: string) => otlp.spans.find((s) => s.name === name);
      await waitFor(
        'the exchange span',
        async () => named('POST /foreign-exchange/exchange-rates') !== undefined,
        10_000,
      );
      const exchange = named('POST /foreign-exchange/exchange-rates')!;
      const step = otlp.spans.find((s) => s.name === 'to-http' && s.parentSpanId === exchange.spanId);
      expect(exchange.parentSpanId).toBe('00f067aa0ba902b7');
      expect(step, JSON.stringify(otlp.spans)).toBeDefined();
      expect(otlp.spans.some((s) => s.name.startsWith('GET ') && s.parentSpanId === step!.spanId)).toBe(true);
    } finally {
      otlp.close();
    }
  }, 90_000);

  it('a start-up failure the user caused (a wrong OTEL_TRACES_EXPORTER) is one line naming no path of the build', async () => {
    const r = await run(
      'node',
      [
        'bin/engine.js',
        'run',
        'routes/hubvendor-foreign-exchange',
        '--set',
        'hubvendor-base-url=http://127.0.0.1:9',
        '--port',
        '0',
      ],
      { cwd: dir, env: { ...process.env, OTEL_TRACES_EXPORTER: 'jaeger', LOG_LEVEL: 'warn' }, timeoutMs: 60_000 },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "engine: OTEL_TRACES_EXPORTER: unknown exporter 'jaeger'; allowed: otlp, console, none (comma-separated)\n",
    );
    expect(r.stdout + r.stderr).not.toContain(dir);
    expect(r.stdout + r.stderr).not.toContain(ROOT);
  }, 60_000);

  it('reports a broken project exactly as the sources do', async () => {
    const broken = join(dir, 'broken');
    mkdirSync(join(broken, 'tests'), { recursive: true });
    writeFileSync(
      join(broken, 'typo.yaml'),
      'id: typo\nvalues: foreign-exchange-v1\nfrom:\n  http: { method: PSOT, path: "/a/{ref}" }\nsteps:\n  - to-http:\n      method: GET\n      url: "http://vendor.invalid/x/{ref}"\n      path-param: { ref: params.ref }\n      retry: { enabled: 3 }\n',
    );
    writeFileSync(join(broken, 'tests', 'typo.yaml'), 'tests:\n  - name: a test\n    requst: { body: {} }\n');
    const fromBuild = await run('node', ['bin/engine.js', 'lint', 'broken/'], { cwd: dir, timeoutMs: 60_000 });
    // a source newer than the build: bin/engine.js runs the TypeScript (bin-entry.test.ts)
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(dir, 'engine/cli/main.ts'), later, later);
    const fromSources = await run('node', ['bin/engine.js', 'lint', 'broken/'], { cwd: dir, timeoutMs: 60_000 });
    expect(fromBuild.code).toBe(1);
    expect(fromBuild.stdout).toMatch(/did you mean 'path-params'\?/);
    expect(fromBuild.stdout.split('\n').length).toBeGreaterThan(4);
    expect(fromBuild.stdout).toBe(fromSources.stdout);
  }, 90_000);
});
