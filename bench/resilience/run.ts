// Client guards benchmark: what the circuit breaker, bulkhead and retry budget of a client cost
// per request. The FX route in two engines, same simulator (bench/lib/sim-process.ts), same
// bounded load, same run: `guarded` calls the hub through its client profile (the shipped breaker
// and retry budget, plus a bulkhead of 64 + 64 so that all three run), `unguarded` has the same
// settings written in the step, so no guard at all (bench/resilience/projects.ts). Rounds
// alternate which engine goes first; the best round of each is kept, every round is printed, and
// the CPU difference per request is given per round. Then a micro-benchmark of the guard's own
// calls (bench/resilience/micro.ts). `npm run bench:resilience` (SECONDS=10 CONNECTIONS=20 ROUNDS=3).
import { loadavg } from 'node:os';
import { rmSync } from 'node:fs';
import { spawnUrl, stop, measure, sameAnswer, table, type LoadResult, type Proc } from '../lib/harness.ts';
import { writeProjects } from './projects.ts';
import { guardNanos } from './micro.ts';

const seconds = Number(process.env.SECONDS ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 20);
const rounds = Number(process.env.ROUNDS ?? 3);
const load = {
  method: 'POST' as const,
  path: '/foreign-exchange/exchange-rates',
  body: { buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' },
  connections,
  seconds,
  warmupSeconds: 3,
};
const UNGUARDED = 'FX route, no client guard';
const GUARDED = 'FX route, breaker + bulkhead + budget';

/** Whether the engine has a breaker on the hub client (its gauge is exported from the start). */
async function hasBreaker(p: Proc): Promise<boolean> {
  const text = await fetch(`${p.url}/metrics`).then((r) => r.text());
  return text.split('\n').some((l) => l.startsWith('engine_client_breaker_state{') && l.includes('/hubvendor"'));
}

const projects = writeProjects();
const tsx = ['--import', 'tsx'];
const sim = await spawnUrl([...tsx, 'bench/lib/sim-process.ts']);
const engines: Proc[] = [];
const perRound: LoadResult[][] = [];
try {
  for (const dir of [projects.unguarded, projects.guarded])
    engines.push(
      await spawnUrl(['bin/engine.js', 'run', dir, '--port', '0', '--set', `hubvendor-base-url=${sim.url}`], {
        LOG_LEVEL: 'info',
      }),
    );
  const [unguarded, guarded] = engines;
  if ((await hasBreaker(unguarded)) || !(await hasBreaker(guarded)))
    throw new Error('the guarded engine must have the hub client breaker, the unguarded one none');
  await sameAnswer(
    [
      [UNGUARDED, unguarded],
      [GUARDED, guarded],
    ],
    load,
    [],
  );
  for (let r = 0; r < rounds; r++) {
    const order: [string, Proc][] = [
      [UNGUARDED, unguarded],
      [GUARDED, guarded],
    ];
    if (r % 2 === 1) order.reverse();
    const row = new Map<string, LoadResult>();
    for (const [name, p] of order) {
      const m = await measure(name, p, load);
      process.stderr.write(
        `round ${r + 1}: ${name}: ${m.rps} req/s, ${m.cpuUsPerReq} µs CPU/req, steal ${m.stealPct} %\n`,
      );
      row.set(name, m);
    }
    perRound.push([row.get(UNGUARDED)!, row.get(GUARDED)!]);
  }
} finally {
  for (const e of engines) await stop(e);
  await stop(sim);
  rmSync(projects.dir, { recursive: true, force: true });
}

const best = [0, 1].map((i) => perRound.map((row) => row[i]).reduce((a, b) => (b.rps > a.rps ? b : a)));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cpuDiff = perRound.map(([u, g]) => g.cpuUsPerReq - u.cpuUsPerReq);
console.log(
  `\nClient guards on the FX route, ${connections} connections, ${seconds} s, ${rounds} alternating rounds (best of each), ${new Date().toISOString()}, node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n`,
);
console.log(table(best, UNGUARDED));
console.log(
  `\n| round | unguarded req/s | guarded req/s | unguarded CPU µs/req | guarded CPU µs/req | CPU difference µs/req | steal % |\n|---|---|---|---|---|---|---|\n${perRound
    .map(
      ([u, g], i) =>
        `| ${i + 1} | ${u.rps} | ${g.rps} | ${u.cpuUsPerReq} | ${g.cpuUsPerReq} | ${cpuDiff[i]} | ${u.stealPct} / ${g.stealPct} |`,
    )
    .join('\n')}`,
);
console.log(
  `\nCPU difference per request (guarded - unguarded): median ${median(cpuDiff)} µs over ${rounds} rounds; throughput ratio of the best rounds ${(best[1].rps / best[0].rps).toFixed(3)}`,
);
console.log('\nThe guard alone (call + enter + leave per vendor call, best of 5 x 2,000,000, in this process):\n');
console.log('| guard | ns per call |\n|---|---|');
for (const { name, ns } of guardNanos()) console.log(`| ${name} | ${ns} |`);
