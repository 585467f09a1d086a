// FX benchmark: the FX route through the engine against the hand-written baseline, same
// simulator, same bounded load, one run. `npm run bench:fx` (SECONDS=10 CONNECTIONS=20 to change).
import { spawnUrl, stop, measure, table, type LoadResult } from '../lib/harness.ts';

const seconds = Number(process.env.SECONDS ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 20);
const load = { method: 'POST' as const, path: '/foreign-exchange/exchange-rates', body: { buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' }, connections, seconds, warmupSeconds: 3 };
const tsx = ['--import', 'tsx'];

const sim = await spawnUrl([...tsx, 'bench/lib/sim-process.ts']);
const results: LoadResult[] = [];
try {
  const baseline = await spawnUrl([...tsx, 'bench/fx/baseline.ts', sim.url]);
  results.push(await measure('baseline (node:http + undici + ajv)', baseline, load));
  await stop(baseline);
  const engine = await spawnUrl(['bin/engine.js', 'run', 'routes/hubvendor-foreign-exchange', '--port', '0', '--set', `hubvendor-base-url=${sim.url}`], { LOG_LEVEL: 'info' });
  results.push(await measure('engine (FX route, JSONata)', engine, load));
  await stop(engine);
} finally {
  await stop(sim);
}
console.log(`\nFX route, ${connections} connections, ${seconds} s, ${new Date().toISOString()}, node ${process.version}\n`);
console.log(table(results, results[0].name));
