// Start-up, pinned: spawn to the first correct FX answer and idle RSS for the three hand-written FX
// programs (the limit, the same work written plainly, and written for start-up, each bundled into one
// file), the engine serving the FX route alone, and the engine serving every sandbox route
// (`npm start`), each on the target core while the simulator answers from the load core.
// Interleaved runs, medians. Measures the build.
import { cpuMicros, rssMiB, spawnUrl, stop } from '../lib/harness.ts';
import { onTargetCore } from '../lib/pinning.ts';
import { buildLimit } from '../startup/build-limit.ts';

export interface StartSample {
  firstAnswerMs: number;
  cpuMs: number;
  rssMiB: number;
}

export interface StartResult {
  /** a bare node:http server answering a fixed FX body: what node itself costs to start */
  bare: StartSample;
  /** the FX limit (bench/hubvendor-foreign-exchange/baseline.ts), bundled */
  limit: StartSample;
  /** the same work written plainly (bench/strict/plain-fx.ts: node:http, undici, a default Ajv), bundled */
  plain: StartSample;
  /** the same work written for start-up (bench/strict/lean-fx.ts: node:http both ways, checks by hand), bundled */
  lean: StartSample;
  oneRoute: StartSample;
  allRoutes: StartSample;
}

const BARE = `require('node:http').createServer((q, s) => { q.resume(); q.on('end', () => s.writeHead(200, { 'content-type': 'application/json' }).end('{"buyCurrency":"EUR"}')); }).listen(0, '127.0.0.1', function () { console.log('http://127.0.0.1:' + this.address().port); });`;
const REQUEST = JSON.stringify({ buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' });

async function once(args: string[], env: NodeJS.ProcessEnv, idleMs: number): Promise<StartSample> {
  const t0 = performance.now();
  const p = await spawnUrl(args, env, 60_000, onTargetCore);
  try {
    const res = await fetch(`${p.url}/foreign-exchange/exchange-rates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: REQUEST,
    });
    const body = (await res.json()) as { buyCurrency?: string };
    const firstAnswerMs = performance.now() - t0;
    const cpuMs = cpuMicros(p.child.pid!) / 1000;
    if (res.status !== 200 || body.buyCurrency !== 'EUR') throw new Error(`first answer ${res.status}`);
    await new Promise((r) => setTimeout(r, idleMs));
    return { firstAnswerMs, cpuMs, rssMiB: rssMiB(p.child.pid!) };
  } finally {
    await stop(p);
  }
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const medianOf = (s: StartSample[]): StartSample => ({
  firstAnswerMs: median(s.map((x) => x.firstAnswerMs)),
  cpuMs: median(s.map((x) => x.cpuMs)),
  rssMiB: median(s.map((x) => x.rssMiB)),
});

export async function startupStrict(vendor: string, runs = 3, idleMs = 1500): Promise<StartResult> {
  const limitJs = buildLimit('bench/hubvendor-foreign-exchange/baseline.ts');
  const plainJs = buildLimit('bench/strict/plain-fx.ts');
  const leanJs = buildLimit('bench/strict/lean-fx.ts');
  const env = { LOG_LEVEL: 'info', ENGINE_CONSOLE_ENABLED: 'false' };
  const targets: [keyof StartResult, string[], NodeJS.ProcessEnv][] = [
    ['bare', ['-e', BARE], {}],
    ['limit', [limitJs, vendor], {}],
    ['plain', [plainJs, vendor], {}],
    ['lean', [leanJs, vendor], {}],
    [
      'oneRoute',
      [
        'bin/engine.js',
        'run',
        'routes/hubvendor-foreign-exchange',
        '--port',
        '0',
        '--set',
        `hubvendor-base-url=${vendor}`,
      ],
      env,
    ],
    // the sandbox as `npm start` runs it: its simulators, its console
    ['allRoutes', ['bin/engine.js', 'run', 'routes/', '--env', 'sandbox', '--port', '0'], { LOG_LEVEL: 'info' }],
  ];
  const samples = new Map<keyof StartResult, StartSample[]>(targets.map(([k]) => [k, []]));
  for (let r = 0; r < runs; r++)
    for (const [k, args, e] of targets) {
      const s = await once(args, e, idleMs);
      samples.get(k)!.push(s);
      process.stderr.write(
        `  start ${k}: ${s.firstAnswerMs.toFixed(0)} ms to the first answer, idle RSS ${s.rssMiB} MiB\n`,
      );
    }
  return {
    bare: medianOf(samples.get('bare')!),
    limit: medianOf(samples.get('limit')!),
    plain: medianOf(samples.get('plain')!),
    lean: medianOf(samples.get('lean')!),
    oneRoute: medianOf(samples.get('oneRoute')!),
    allRoutes: medianOf(samples.get('allRoutes')!),
  };
}
