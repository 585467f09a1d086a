// CPU profiles of the hand-written limit and of the engine serving the FX route under the
// benchmark's load, one after the other in one run, side by side:
//   npm run build && node --import tsx bench/hubvendor-foreign-exchange/profile.ts [DIR]     (SECONDS=8 CONNECTIONS=20)
// writes each target's .cpuprofile (open them in Chrome DevTools) and prints self time per file
// and per function in µs per request. Run it on the build: the TypeScript loader's names would be
// mixed in otherwise. The profiles cover start-up too: its share is small after seconds of load.
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { spawnUrl, stop } from '../lib/harness.ts';
import { summarize, type ProfileSummary } from '../lib/cpu-profile.ts';

const dir = process.argv[2] ?? '/tmp/fx-profile';
const seconds = Number(process.env.SECONDS ?? 8);
const sim = await spawnUrl(['--import', 'tsx', 'bench/lib/sim-process.ts']);
const body = JSON.stringify({ buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' });

async function profile(name: string, args: (out: string) => string[], signal: NodeJS.Signals): Promise<ProfileSummary> {
  const out = join(dir, name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const p = await spawnUrl(['--cpu-prof', `--cpu-prof-dir=${out}`, ...args(out)], { LOG_LEVEL: 'info' });
  const r = await autocannon({
    url: `${p.url}/foreign-exchange/exchange-rates`,
    method: 'POST',
    connections: Number(process.env.CONNECTIONS ?? 20),
    body,
    headers: { 'content-type': 'application/json' },
    duration: seconds,
  });
  console.log(`${name}: ${Math.round(r.requests.average)} req/s, ${r.requests.total} requests, non-2xx ${r.non2xx}`);
  p.child.kill(signal);
  await new Promise((res) => p.child.once('exit', res));
  // the main thread's profile is the biggest (a loader thread may write one too)
  const file = readdirSync(out)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => [f, statSync(join(out, f)).size] as const)
    .sort((a, b) => b[1] - a[1])[0][0];
  return summarize(join(out, file), r.requests.total);
}

try {
  // the limit exits on SIGTERM, the engine writes its profile after a graceful SIGINT
  const limit = await profile(
    'limit',
    () => ['--import', 'tsx', 'bench/hubvendor-foreign-exchange/baseline.ts', sim.url],
    'SIGTERM',
  );
  const engine = await profile(
    'engine',
    () => [
      'bin/engine.js',
      'run',
      'routes/hubvendor-foreign-exchange',
      '--port',
      '0',
      '--set',
      `hubvendor-base-url=${sim.url}`,
    ],
    'SIGINT',
  );
  const show = (title: string, rows: [string, number][], n: number) => {
    console.log(`\n${title}`);
    for (const [k, us] of rows.slice(0, n)) console.log(`${us.toFixed(2).padStart(7)} µs  ${k}`);
  };
  for (const [name, s] of [
    ['limit', limit],
    ['engine', engine],
  ] as const) {
    console.log(`\n== ${name}: busy ${s.totalUs.toFixed(1)} µs per request (profiler overhead included)`);
    show('by file:', s.files, 20);
    show('by function:', s.functions, name === 'engine' ? 40 : 20);
  }
  console.log(`\nprofiles: ${dir}/limit, ${dir}/engine`);
} finally {
  await stop(sim);
}
