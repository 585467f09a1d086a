// The hand-written limit of the FX route: its work with node:http, a compiled ajv, an undici pool
// called through `dispatch` and plain JavaScript, and nothing else — validate the body (schema and
// the amount's minor units), call the vendor, map the answer, check it against the route's output
// schema (the engine checks every successful answer: issue 31 asks for exactly the route's work),
// reply with a content-length.
// Prints its URL.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { createAjv } from '../../engine/schemas/schemas.ts';
import { amountValid } from '../../engine/core/functions.ts';
import { call, readText, reply, vendorPool } from '../lib/limit.ts';
import { fxAnswer, fxVendorPath } from '../lib/fx-vendor.ts';

const pool = vendorPool(process.argv[2]);
const validate = createAjv().compile(
  JSON.parse(readFileSync('routes/hubvendor-foreign-exchange/schemas/exchange-rate-request.schema.json', 'utf8')),
);
const output = createAjv().compile(
  JSON.parse(readFileSync('routes/hubvendor-foreign-exchange/schemas/exchange-rate-response.schema.json', 'utf8')),
);
const HEADERS = { accept: 'application/json' };
const BAD_GATEWAY = JSON.stringify({ status: 502, code: 'GC027' });

const server = createServer((req, res) =>
  readText(req, async (text) => {
    let b: any;
    try {
      b = JSON.parse(text);
    } catch {
      reply(
        res,
        400,
        JSON.stringify({ status: 400, detail: 'the body is not valid JSON' }),
        'application/problem+json',
      );
      return;
    }
    if (!validate(b as object)) {
      reply(res, 400, JSON.stringify({ status: 400, errors: validate.errors }), 'application/problem+json');
      return;
    }
    if (
      b.transactionAmount !== undefined &&
      !amountValid(b.transactionAmount, b.transactionAmountType === 'SELL' ? b.sellCurrency : b.buyCurrency)
    ) {
      reply(
        res,
        400,
        JSON.stringify({ status: 400, errors: [{ field: '/transactionAmount' }] }),
        'application/problem+json',
      );
      return;
    }
    const path = fxVendorPath(b);
    try {
      const r = await call(pool, { method: 'GET', path, headers: HEADERS });
      if (r.status !== 200) {
        reply(res, 502, BAD_GATEWAY, 'application/problem+json');
        return;
      }
      const v = JSON.parse(r.text).body;
      const answer = fxAnswer(v);
      if (!output(answer)) {
        reply(res, 502, BAD_GATEWAY, 'application/problem+json');
        return;
      }
      reply(res, 200, JSON.stringify(answer));
    } catch {
      reply(res, 502, BAD_GATEWAY, 'application/problem+json');
    }
  }),
);
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as any).port}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  process.exit(0);
});
