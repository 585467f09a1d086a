// CPU per request of the engine of another checkout (A) against this one's (B), at a fixed offered
// rate (both do the same work per second, so batching does not differ) in many short alternating
// slices; the median of the paired differences says more than a few long rounds on a shared machine.
//   git archive main | tar -x -C /tmp/main && ln -s "$PWD/node_modules" /tmp/main/node_modules
//   flock /tmp/bench.lock node --import tsx bench/gateway/pair.ts /tmp/main
// TARGET=mcp (default) or direct; RATE (6000 req/s), PAIRS (12), SLICE (3 s).
import autocannon from 'autocannon';
import { cpuMicros, spawnUrl, stop, type Proc } from '../lib/harness.ts';
import { requestFor, startTarget, targetOf } from './targets.ts';

const other = process.argv[2];
if (!other) throw new Error('usage: pair.ts <directory of the other checkout>');
const target = targetOf(process.env.TARGET);
if (target !== 'mcp' && target !== 'direct') throw new Error('TARGET must be mcp or direct');
const rate = Number(process.env.RATE ?? 6000);
const slice = Number(process.env.SLICE ?? 3);
const pairs = Number(process.env.PAIRS ?? 12);

const sim = await spawnUrl(['--import', 'tsx', 'bench/gateway/hubvendor-sim.ts']);
const procs: Proc[] = [];
try {
  const a = await startTarget(target, sim.url, { dir: other });
  procs.push(a);
  const b = await startTarget(target, sim.url);
  procs.push(b);
  const req = await requestFor(target);
  /** CPU µs per request of `p` over `seconds` at the fixed rate. */
  const slot = async (p: Proc, seconds: number): Promise<number> => {
    const cpu0 = cpuMicros(p.child.pid!);
    const r = await autocannon({
      url: p.url + req.path,
      method: 'POST',
      connections: 50,
      headers: req.headers,
      body: req.body,
      duration: seconds,
      overallRate: rate,
    });
    if (r.non2xx || r.errors) throw new Error(`${r.non2xx + r.errors} failed requests`);
    return (cpuMicros(p.child.pid!) - cpu0) / r.requests.total;
  };
  await slot(a, 4); // warm-up (JIT)
  await slot(b, 4);
  const ra: number[] = [];
  const rb: number[] = [];
  const diff: number[] = [];
  for (let i = 0; i < pairs; i++) {
    // alternating which goes first, so a drift of the machine's load favours neither
    const [x, y] =
      i % 2 ? [await slot(b, slice), await slot(a, slice)].reverse() : [await slot(a, slice), await slot(b, slice)];
    ra.push(x);
    rb.push(y);
    diff.push(y - x);
    process.stderr.write(`pair ${i + 1}: A ${x.toFixed(1)} µs, B ${y.toFixed(1)} µs\n`);
  }
  const q = (xs: number[], f: number) => [...xs].sort((m, n) => m - n)[Math.floor((xs.length - 1) * f)].toFixed(1);
  console.log(
    `${target} at ${rate} req/s, ${pairs} pairs of ${slice} s, CPU per request: A median ${q(ra, 0.5)} µs, B median ${q(rb, 0.5)} µs; B - A median ${q(diff, 0.5)} µs (quartiles ${q(diff, 0.25)} / ${q(diff, 0.75)})`,
  );
} finally {
  for (const p of procs) await stop(p);
  await stop(sim);
}
