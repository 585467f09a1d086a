import { spawnUrl, stop, measure } from './lib/harness.ts';
const load = { method: 'POST' as const, path: '/foreign-exchange/exchange-rates', body: { buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' }, connections: 20, seconds: 6, warmupSeconds: 2 };
const sim = await spawnUrl(['--import', 'tsx', 'bench/lib/sim-process.ts']);
for (let k = 0; k < 2; k++) {
  const a = await spawnUrl(['--import', 'tsx', 'bench/serve.tmp.ts', sim.url]);
  let r = await measure('inproc', a, load); console.log('startEngine', r.rps, r.cpuUsPerReq); await stop(a);
  const b = await spawnUrl(['bin/engine.js', 'run', 'routes/hubvendor-foreign-exchange', '--port', '0', '--set', `hubvendor-base-url=${sim.url}`], { LOG_LEVEL: 'info' });
  r = await measure('cli', b, load); console.log('cli', r.rps, r.cpuUsPerReq); await stop(b);
  const c = await spawnUrl(['--import', 'tsx', 'bench/fx/baseline.ts', sim.url]);
  r = await measure('base', c, load); console.log('baseline', r.rps, r.cpuUsPerReq); await stop(c);
}
await stop(sim);
