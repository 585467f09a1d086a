import { spawnUrl, stop, measure } from './lib/harness.ts';
const load = { method: 'POST' as const, path: '/foreign-exchange/exchange-rates', body: { buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' }, connections: 20, seconds: 6, warmupSeconds: 2 };
const sim = await spawnUrl(['--import', 'tsx', 'bench/lib/sim-process.ts']);
for (const d of (process.argv[2] ?? 'b,c,c1,d').split(',')) {
  const e = await spawnUrl(['bin/engine.js', 'run', `/tmp/exp/${d}`, '--port', '0', '--set', `hubvendor-base-url=${sim.url}`], { LOG_LEVEL: 'info' });
  const r = await measure(d, e, load); console.log(d, r.rps, r.cpuUsPerReq, r.non2xx);
  await stop(e);
}
const b = await spawnUrl(['--import', 'tsx', 'bench/fx/baseline.ts', sim.url]);
const r = await measure('base', b, load); console.log('baseline', r.rps, r.cpuUsPerReq);
await stop(b); await stop(sim);
