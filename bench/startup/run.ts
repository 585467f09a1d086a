// Start-up benchmark: the time from spawning a server to its first correct FX answer, and its
// resident memory once idle, for the hand-written limit (bench/hubvendor-foreign-exchange/baseline.ts as JavaScript),
// the
// engine serving the FX route alone, and the engine serving every route of the sandbox project
// (`npm start`: embedded simulators), with and without the build's code cache. The engine runs its
// build (`npm run build` first: run.ts refuses a stale one). Interleaved runs, medians.
//   npm run bench:startup          (RUNS=5 IDLE_MS=2000 to change; ENGINE=<path of another
//   checkout's bin/engine.js> measures that build instead, for a before/after comparison)
import { existsSync, statSync, readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { spawnUrl, stop, rssMiB, cpuTicks, cpuMicros } from '../lib/harness.ts';
import { buildLimit } from './build-limit.ts';

const runs = Number(process.env.RUNS ?? 5);
const idleMs = Number(process.env.IDLE_MS ?? 2000);
const request = { buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' };

/** Newest .ts below `dir`: the build must be at least as new (bin/engine.js would run the sources otherwise). */
function newest(dir: string): number {
  return Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => statSync(`${e.parentPath}/${e.name}`).mtimeMs),
  );
}
const engineBin = process.env.ENGINE ?? 'bin/engine.js';
const built = 'dist/engine.cjs';
// ENGINE= measures another checkout's build: this checkout's build and sources do not matter then
if (
  !process.env.ENGINE &&
  (!existsSync(built) || statSync(built).mtimeMs < Math.max(newest('engine'), newest('sandbox')))
) {
  process.stderr.write('bench:startup measures the build: run `npm run build` first\n');
  process.exit(1);
}

interface Target {
  name: string;
  args: (vendor: string) => string[];
  env?: NodeJS.ProcessEnv;
}
const limitJs = buildLimit('bench/hubvendor-foreign-exchange/baseline.ts');
const targets: Target[] = [
  { name: 'hand-written limit (node:http + undici + ajv)', args: (vendor) => [limitJs, vendor] },
  {
    name: 'engine, FX route',
    args: (vendor) => [
      engineBin,
      'run',
      'routes/hubvendor-foreign-exchange',
      '--port',
      '0',
      '--set',
      `hubvendor-base-url=${vendor}`,
    ],
    env: { LOG_LEVEL: 'info' },
  },
  {
    name: 'engine, all sandbox routes (npm start)',
    args: () => [engineBin, 'run', 'routes/', '--env', 'sandbox', '--port', '0'],
    env: { LOG_LEVEL: 'info' },
  },
  // what V8's code cache of the build (bin/load-build.js) is worth: the same start compiling everything
  {
    name: 'engine, all sandbox routes, no code cache',
    args: () => [engineBin, 'run', 'routes/', '--env', 'sandbox', '--port', '0'],
    env: { LOG_LEVEL: 'info', ENGINE_CODE_CACHE: 'off' },
  },
];

/** Wall time depends on what else the machine runs; the CPU the server spent to answer is steadier. */
interface Sample {
  firstAnswerMs: number;
  cpuMs: number;
  rssMiB: number;
}

/** Spawns the target, asks for a rate as soon as it prints its URL, checks the answer, waits idle, reads RSS. */
async function once(t: Target, vendor: string): Promise<Sample> {
  const t0 = performance.now();
  const p = await spawnUrl(t.args(vendor), t.env);
  try {
    const res = await fetch(`${p.url}/foreign-exchange/exchange-rates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    const body = (await res.json()) as { buyCurrency?: string; middleRate?: unknown };
    const firstAnswerMs = performance.now() - t0;
    const cpuMs = cpuMicros(p.child.pid!) / 1000;
    if (res.status !== 200 || body.buyCurrency !== 'EUR' || typeof body.middleRate !== 'number')
      throw new Error(`${t.name}: first answer ${res.status} ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, idleMs));
    return { firstAnswerMs, cpuMs, rssMiB: rssMiB(p.child.pid!) };
  } finally {
    await stop(p);
  }
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const sim = await spawnUrl(['--import', 'tsx', 'bench/lib/sim-process.ts']);
const samples = new Map<string, Sample[]>(targets.map((t) => [t.name, []]));
const ticks0 = cpuTicks();
try {
  for (let r = 0; r < runs; r++) {
    for (const t of targets) {
      const s = await once(t, sim.url);
      samples.get(t.name)!.push(s);
      process.stderr.write(
        `run ${r + 1}: ${t.name}: first answer after ${s.firstAnswerMs.toFixed(0)} ms (${s.cpuMs.toFixed(0)} ms CPU), idle RSS ${s.rssMiB} MiB\n`,
      );
    }
  }
} finally {
  await stop(sim);
}
const ticks1 = cpuTicks();
const base = samples.get(targets[0].name)!;
const baseMs = median(base.map((s) => s.firstAnswerMs));
const baseRss = median(base.map((s) => s.rssMiB));
const baseCpu = median(base.map((s) => s.cpuMs));
const rows = targets.map((t) => {
  const s = samples.get(t.name)!;
  const ms = median(s.map((x) => x.firstAnswerMs));
  const rss = median(s.map((x) => x.rssMiB));
  const cpu = median(s.map((x) => x.cpuMs));
  return `| ${t.name} | ${ms.toFixed(0)} (${Math.min(...s.map((x) => x.firstAnswerMs)).toFixed(0)}-${Math.max(...s.map((x) => x.firstAnswerMs)).toFixed(0)}) | ${(ms / baseMs).toFixed(2)} | ${cpu.toFixed(0)} | ${(cpu / baseCpu).toFixed(2)} | ${rss} | ${(rss / baseRss).toFixed(2)} |`;
});
const steal = Math.round((100 * (ticks1.steal - ticks0.steal)) / Math.max(1, ticks1.total - ticks0.total));
console.log(
  `\nStart-up, ${runs} interleaved runs (medians), ${new Date().toISOString()}, node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg()[0].toFixed(1)}, steal ${steal} %\n`,
);
console.log(
  [
    '| target | spawn to first answer, ms (range) | vs limit | CPU to first answer, ms | vs limit | idle RSS MiB | vs limit |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n'),
);
