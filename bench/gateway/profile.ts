// CPU profile of one target under run.ts's tools/call load: `node --import tsx bench/gateway/profile.ts [DIR]`
// writes a .cpuprofile of the target process (open it in Chrome DevTools) and prints the heaviest
// functions by self time in µs per request. TARGET picks the process: mcp (the engine's /mcp, the
// default), direct (the engine's FX route), limit (bench/gateway/limit.ts) or fx-limit
// (bench/hubvendor-foreign-exchange/baseline.ts): profiles of the engine and of its limit under the same load show
// where
// the engine's extra CPU goes. CONNECTIONS (50) and SECONDS (8) as in run.ts.
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { spawnUrl, stop } from '../lib/harness.ts';
import { summarize } from '../lib/cpu-profile.ts';
import { requestFor, startTarget, targetOf } from './targets.ts';

const dir = process.argv[2] ?? '/tmp/gateway-profile';
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const target = targetOf(process.env.TARGET);
// the simulator in its own process, so that the profile holds only the target's work
const sim = await spawnUrl(['--import', 'tsx', 'bench/gateway/hubvendor-sim.ts']);
const proc = await startTarget(target, sim.url, { node: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
const req = await requestFor(target);
const opts = {
  url: proc.url + req.path,
  method: 'POST' as const,
  connections: Number(process.env.CONNECTIONS ?? 50),
  body: req.body,
  headers: req.headers,
};
await autocannon({ ...opts, duration: 3 }); // warm-up, outside the window summed below
const µs = () => Number(process.hrtime.bigint() / 1000n);
const from = µs();
const r = await autocannon({ ...opts, duration: Number(process.env.SECONDS ?? 8) });
const window = { from, to: µs() };
console.log(`${target}: ${Math.round(r.requests.average)} req/s, non-2xx ${r.non2xx}`);
// the engine writes its profile on SIGINT (a clean shutdown), the limits on SIGTERM (process.exit)
proc.child.kill(target === 'mcp' || target === 'direct' ? 'SIGINT' : 'SIGTERM');
await new Promise((res) => proc.child.once('exit', res));
await stop(sim);
// the main thread's profile is the biggest (tsx's loader thread writes one too)
const file = readdirSync(dir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .map((f) => [f, statSync(join(dir, f)).size] as const)
  .sort((a, b) => b[1] - a[1])[0][0];
const s = summarize(join(dir, file), r.requests.total, window);
console.log(
  `busy ${s.totalUs.toFixed(1)} µs per request while measured (profiler overhead included), (program) ${s.programUs.toFixed(1)} µs, idle ${s.idleUs.toFixed(1)} µs\nby file:`,
);
for (const [k, us] of s.files.slice(0, 15)) console.log(`${us.toFixed(2).padStart(7)} µs  ${k}`);
console.log('by function:');
for (const [k, us] of s.functions.slice(0, 40)) console.log(`${us.toFixed(2).padStart(7)} µs  ${k}`);
console.log(`profile: ${join(dir, file)}`);
