import { Agent, request } from 'undici';
import { startEngine } from '../engine/engine.ts';
import { createLogger } from '../engine/runtime/logger.ts';
import { httpCall, HttpClients } from '../engine/runtime/http-client.ts';
import { spawnUrl, stop } from './lib/harness.ts';
const sim = await spawnUrl(['--import', 'tsx', 'bench/lib/sim-process.ts']);
const { runRoute } = await import('../engine/runtime/route.ts');
const { createExchange } = await import('../engine/runtime/exchange.ts');
const engines: any = {};
for (const d of ['b', 'c', 'c1', 'd']) engines[d] = await startEngine({ routes: ['/tmp/exp/' + d], port: 0, logger: createLogger('warn'), set: { 'hubvendor-base-url': sim.url } });
const agent = new Agent({ connections: 200, keepAliveTimeout: 30000 });
const clients = new HttpClients();
const disp = clients.get({ connections: 200, connectTimeout: 5000, proxy: false });
const url = `${sim.url}/v1/forex/exchange-rates/EUR/USD/1/BUY?currencyMarket=1`;
const viaRoute = (d: string) => async () => {
  const e = engines[d];
  const ex = createExchange({ routeId: 'x', correlationId: 'c', body: { buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' }, logger: e.services.logger });
  const o = await runRoute(e.routes[0], ex, e.services.metrics); if (o.error) throw o.error;
};
const viaUndici = async () => { const r = await request(url, { dispatcher: agent, headers: { accept: 'application/json' } }); await r.body.json(); };
const viaHttpCall = async () => { await httpCall({ method: 'GET', url, headers: { accept: 'application/json', 'x-correlation-id': 'c' }, timeouts: { connect: 5000, request: 10000, response: 15000, socket: 10000 }, dispatcher: disp }); };
async function run(name: string, fn: () => Promise<void>, n = 15000) {
  const c0 = process.cpuUsage(); const t0 = performance.now();
  let i = 0; await Promise.all(Array.from({ length: 20 }, async () => { while (i++ < n) await fn(); }));
  const c = process.cpuUsage(c0);
  console.log(name.padEnd(12), Math.round(n / ((performance.now() - t0) / 1000)), 'req/s', Math.round((c.user + c.system) / n), 'µs cpu/req');
}
await run('warm', viaUndici);
for (let k = 0; k < 2; k++) { await run('undici', viaUndici); await run('httpCall', viaHttpCall); await run('b', viaRoute('b')); await run('c', viaRoute('c')); await run('c1', viaRoute('c1')); await run('d', viaRoute('d')); }
for (const e of Object.values(engines)) await (e as any).close(); await stop(sim); await agent.close(); await clients.close();
