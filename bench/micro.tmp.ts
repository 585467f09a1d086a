import { Agent, request } from 'undici';
import { startEngine } from '../engine/engine.ts';
import { createLogger } from '../engine/runtime/logger.ts';
import { spawnUrl, stop } from './lib/harness.ts';
const sim = await spawnUrl(['--import', 'tsx', 'bench/lib/sim-process.ts']);
const e = await startEngine({ routes: ['/tmp/exp/d'], port: 18083, logger: createLogger('warn'), set: { 'hubvendor-base-url': sim.url } });
const route = e.routes[0];
const { runRoute } = await import('../engine/runtime/route.ts');
const { createExchange } = await import('../engine/runtime/exchange.ts');
const agent = new Agent({ connections: 200, keepAliveTimeout: 30000 });
async function viaEngine() {
  const ex = createExchange({ routeId: 'x', correlationId: 'c', body: { buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' }, logger: e.services.logger });
  const o = await runRoute(route, ex, e.services.metrics); if (o.error) throw o.error;
}
async function viaUndici() {
  const r = await request(`${sim.url}/v1/forex/exchange-rates/EUR/USD/1/BUY?currencyMarket=1`, { dispatcher: agent, headers: { accept: 'application/json' } });
  const v: any = await r.body.json(); const b = v.body;
  JSON.stringify({ buyCurrency: b.buyCurrencyId, sellCurrency: b.sellCurrencyId, rate: b.middleRate });
}
async function run(name: string, fn: () => Promise<void>, n = 20000) {
  const c0 = process.cpuUsage(); const t0 = performance.now();
  let i = 0; await Promise.all(Array.from({ length: 20 }, async () => { while (i++ < n) await fn(); }));
  const c = process.cpuUsage(c0);
  console.log(name, Math.round(n / ((performance.now() - t0) / 1000)), 'req/s', Math.round((c.user + c.system) / n), 'µs cpu/req');
}
for (let k = 0; k < 2; k++) { await run('undici', viaUndici); await run('engine route', viaEngine); }
await e.close(); await stop(sim); await agent.close();
