// Hand-written baseline: the FX route's work with node:http + undici + ajv and nothing else —
// validate the body, call the vendor, map the answer. Prints its URL.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { createAjv } from '../../engine/runtime/schemas.ts';

const vendor = process.argv[2];
const ajv = createAjv();
const validate = ajv.compile(JSON.parse(readFileSync('schemas/foreign-exchange/exchange-rate-request.schema.json', 'utf8')));
const agent = new Agent({ connections: 200, keepAliveTimeout: 30_000 });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', async () => {
    let body: any;
    try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { res.writeHead(400).end(); return; }
    if (!validate(body as object)) { res.writeHead(400, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ status: 400, errors: validate.errors })); return; }
    const url = `${vendor}/v1/forex/exchange-rates/${encodeURIComponent(body.buyCurrency)}/${encodeURIComponent(body.sellCurrency)}/${encodeURIComponent(body.transactionAmount ?? '1')}/${encodeURIComponent(body.transactionAmountType ?? 'BUY')}?currencyMarket=1`;
    try {
      const r = await request(url, { dispatcher: agent, headers: { accept: 'application/json' }, headersTimeout: 15_000, bodyTimeout: 10_000 });
      const v = (await r.body.json()) as any;
      if (r.statusCode !== 200) { res.writeHead(502).end(); return; }
      const b = v.body;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
        buyCurrency: b.buyCurrencyId, sellCurrency: b.sellCurrencyId, currencyMarket: String(b.currencyMarketId),
        buyRate: b.buyRate, sellRate: b.sellRate, middleRate: b.middleRate, quotationCode: b.quotationCode,
        rateDate: b.rateDate, transactionAmount: String(b.transactionAmount), transactionAmountType: b.transactionAmountType,
      }));
    } catch {
      res.writeHead(502).end();
    }
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => { process.stdout.write(`http://127.0.0.1:${(server.address() as any).port}\n`); });
process.on('SIGTERM', () => { server.close(); process.exit(0); });
