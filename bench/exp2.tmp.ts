import { spawnUrl, stop, measure } from './lib/harness.ts';
const load = { method: 'POST' as const, path: '/x', body: { buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' }, connections: 20, seconds: 5, warmupSeconds: 2 };
for (const f of ['/tmp/rawsrv.mjs', '/tmp/rawsrv2.mjs', '/tmp/rawsrv.mjs', '/tmp/rawsrv2.mjs']) {
  const raw = await spawnUrl([f]);
  const r = await measure('raw', raw, load); console.log(f, r.rps, r.cpuUsPerReq); await stop(raw);
}
