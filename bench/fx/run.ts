// FX benchmark: the FX route through the engine against the hand-written baseline, same
// simulator, same bounded load, interleaved rounds. `npm run bench:fx` (SECONDS=10 CONNECTIONS=20
// ROUNDS=3 to change).
import { spawnUrl, stop, interleaved, table, roundsTable, type LoadResult } from '../lib/harness.ts';

const seconds = Number(process.env.SECONDS ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 20);
const rounds = Number(process.env.ROUNDS ?? 3);
const load = { method: 'POST' as const, path: '/foreign-exchange/exchange-rates', body: { buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' }, connections, seconds, warmupSeconds: 3 };
const tsx = ['--import', 'tsx'];

const sim = await spawnUrl([...tsx, 'bench/lib/sim-process.ts']);
let results: LoadResult[] = [];
let perRound: LoadResult[][] = [];
try {
  const baseline = await spawnUrl([...tsx, 'bench/fx/baseline.ts', sim.url]);
  const engine = await spawnUrl(['bin/engine.js', 'run', 'routes/hubvendor-foreign-exchange', '--port', '0', '--set', `hubvendor-base-url=${sim.url}`], { LOG_LEVEL: 'info' });
  try {
    ({ best: results, perRound } = await interleaved([['baseline (node:http + undici + ajv)', baseline, load], ['engine (FX route, JSONata)', engine, load]], rounds));
  } finally {
    await stop(baseline);
    await stop(engine);
  }
} finally {
  await stop(sim);
}
console.log(`\nFX route, ${connections} connections, ${seconds} s, ${rounds} interleaved rounds (best of each), ${new Date().toISOString()}, node ${process.version}\n`);
console.log(table(results, results[0].name));
console.log(`\n${roundsTable(perRound)}`);
