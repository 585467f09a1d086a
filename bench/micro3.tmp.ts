import { Agent, request } from 'undici';
import { spawnUrl, stop } from './lib/harness.ts';
const sim = await spawnUrl(['--import', 'tsx', 'bench/lib/sim-process.ts']);
const agent = new Agent({ connections: 200, keepAliveTimeout: 30000, connect: { timeout: 5000 } });
const url = `${sim.url}/v1/forex/exchange-rates/EUR/USD/1/BUY?currencyMarket=1`;
const plain = async () => { const r = await request(url, { dispatcher: agent, headers: { accept: 'application/json' } }); await r.body.json(); };
const text = async () => { const r = await request(url, { dispatcher: agent, headers: { accept: 'application/json', 'x-correlation-id': 'c' }, headersTimeout: 15000, bodyTimeout: 10000 }); JSON.parse(await r.body.text()); };
const timers = async () => { const a = setTimeout(() => {}, 10000); const b = setTimeout(() => {}, 15000); const r = await request(url, { dispatcher: agent, headers: { accept: 'application/json' } }); clearTimeout(b); await r.body.json(); clearTimeout(a); };
const signal = async () => { const ac = new AbortController(); const r = await request(url, { dispatcher: agent, headers: { accept: 'application/json' }, signal: ac.signal }); await r.body.json(); };
async function run(name: string, fn: () => Promise<void>, n = 15000) {
  const c0 = process.cpuUsage(); const t0 = performance.now();
  let i = 0; await Promise.all(Array.from({ length: 20 }, async () => { while (i++ < n) await fn(); }));
  const c = process.cpuUsage(c0);
  console.log(name.padEnd(12), Math.round(n / ((performance.now() - t0) / 1000)), 'req/s', Math.round((c.user + c.system) / n), 'µs cpu/req');
}
await run('warm', plain);
for (let k = 0; k < 2; k++) for (const [n, f] of Object.entries({ plain, text, timers, signal })) await run(n, f);
await stop(sim); await agent.close();
