// The vendor stand-in of the strict benchmarks: the FX vendor's answer for EUR/USD, taken once from
// the hubvendor simulator, then served as fixed bytes by a bare node:http server, so that the vendor
// side costs the load core as little as possible and answers the same to every target. Prints its URL.
import { createServer } from 'node:http';
import { startHubvendor } from '../../sandbox/hubvendor/index.ts';

const FX_PATH = '/v1/forex/exchange-rates/EUR/USD/1/BUY?currencyMarket=1';

const sim = await startHubvendor({ record: false, processingDelayMs: null });
const res = await fetch(sim.url + FX_PATH, { headers: { accept: 'application/json' } });
const body = Buffer.from(await res.arrayBuffer());
const type = res.headers.get('content-type') ?? 'application/json';
await sim.close();
if (res.status !== 200) throw new Error(`the simulator answered ${res.status} for ${FX_PATH}`);

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.url !== FX_PATH) {
      res.writeHead(404, { 'content-length': 0 }).end();
      return;
    }
    res.writeHead(200, { 'content-type': type, 'content-length': body.length }).end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(server.address() as any).port}\n`));
process.on('SIGTERM', () => process.exit(0));
