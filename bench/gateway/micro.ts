// In-process cost of the gateway's own work per tools/call (key, token cache, JSON-RPC, limits,
// result building) with the route replaced by a fixed answer, and of the FX route called in-process
// (engine.call; the vendor simulator in its own process). No HTTP front, no load generator: steadier
// than the load benchmark on a shared machine, for comparing changes.
//   node --import tsx bench/gateway/micro.ts
import { startEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { gatewayExtension } from '../../engine/gateway/index.ts';
import { McpGateway } from '../../engine/gateway/mcp.ts';
import { signSandboxToken } from '../../sandbox/idp/index.ts';
import { sandboxExtension } from '../../sandbox/extension.ts';
import { spawnUrl, stop } from '../lib/harness.ts';

// the vendor simulator in its own process: the CPU measured here is the engine's only
const sim = await spawnUrl(['--import', 'tsx', 'bench/gateway/hubvendor-sim.ts']);

const ext = gatewayExtension();
const engine = await startEngine({
  routes: ['routes/gateway', 'routes/platform-backend', 'routes/hubvendor-foreign-exchange'],
  env: 'sandbox',
  port: 0,
  logger: createLogger('silent'),
  extensions: [sandboxExtension({ record: false }), ext],
  set: {
    'hubvendor-base-url': sim.url,
    'gateway.rateLimits.user': '1000000000',
    'gateway.rateLimits.subscriptionPublic': '1000000000',
  },
});
const r = ext.running!;
const token = await signSandboxToken({ sub: 'bench-user' });
const answer = await engine.call('get-exchange-rate', { body: { buyCurrency: 'EUR', sellCurrency: 'USD' } });
const gw = new McpGateway({
  settings: r.settings,
  tools: r.served,
  verifier: r.verifier,
  limiter: r.limiter,
  log: engine.services.logger,
  call: async () => answer,
});
const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'getExchangeRate', arguments: { buyCurrency: 'EUR', sellCurrency: 'USD' } },
});
const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
  'ocp-gateway-subscription-key': 'sandbox-demo-subscription-key',
  authorization: `Bearer ${token}`,
  host: '127.0.0.1',
  'content-length': String(body.length),
};
await r.verifier.verify(token);

/** CPU per call of `n` calls made by 20 concurrent callers, best and median of 7 runs. */
async function time(name: string, n: number, fn: () => Promise<unknown>): Promise<void> {
  const runs: number[] = [];
  const worker = async (count: number) => {
    for (let i = 0; i < count; i++) await fn();
  };
  for (let k = 0; k < 7; k++) {
    const t0 = process.cpuUsage();
    await Promise.all(Array.from({ length: 20 }, () => worker(n / 20)));
    const d = process.cpuUsage(t0);
    runs.push((d.user + d.system) / n);
  }
  runs.sort((a, b) => a - b);
  console.log(`${name}: min ${runs[0].toFixed(2)} µs, median ${runs[3].toFixed(2)} µs CPU per call`);
}
const first = await gw.handle({ headers, body, remoteAddress: '127.0.0.1', correlationId: 'c' });
if (first.status !== 200 || !first.body?.includes('"isError":false'))
  throw new Error(`unexpected: ${first.status} ${first.body}`);
await time('gateway handle (route stubbed)', 20_000, () =>
  Promise.resolve(gw.handle({ headers, body, remoteAddress: '127.0.0.1', correlationId: 'c' })),
);
await time('FX route in-process (engine.call)', 3_000, () =>
  engine.call('get-exchange-rate', { body: { buyCurrency: 'EUR', sellCurrency: 'USD' } }),
);
await engine.close();
await stop(sim);
process.exit(0);
