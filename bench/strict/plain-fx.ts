// The FX route's work written plainly, without the project's helpers: node:http, undici's
// `Pool.request` with `body.text()`, a default Ajv 2020 with the two formats the schema names, plain
// mapping checked against the route's output schema, JSON.stringify with a content-length. The
// strict benchmark checks that the hand-written limit (bench/hubvendor-foreign-exchange/baseline.ts)
// is not slower than this: a limit must be the best program for the work, not a convenient one.
// The vendor path and the answer's mapping, the route's own facts, come from bench/lib/fx-vendor.ts
// as in every hand-written FX program.
// Prints its URL.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { fxAnswer, fxVendorPath } from '../lib/fx-vendor.ts';

const pool = new Pool(process.argv[2], { connections: 200, pipelining: 1 });
const ajv = new Ajv2020({ allErrors: true, strict: false });
const CURRENCIES = new Set(['EUR', 'USD', 'GBP', 'CHF', 'JPY', 'SEK', 'NOK', 'DKK', 'PLN', 'CZK', 'HUF', 'CAD', 'AUD']);
ajv.addFormat('iso4217', (s: string) => CURRENCIES.has(s));
ajv.addFormat('decimal-amount', /^\d{1,15}(\.\d+)?$/);
const validate = ajv.compile(
  JSON.parse(readFileSync('routes/hubvendor-foreign-exchange/schemas/exchange-rate-request.schema.json', 'utf8')),
);

const output = ajv.compile(
  JSON.parse(readFileSync('routes/hubvendor-foreign-exchange/schemas/exchange-rate-response.schema.json', 'utf8')),
);

function send(res: import('node:http').ServerResponse, status: number, body: unknown, type = 'application/json') {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) }).end(text);
}

const server = createServer((req, res) => {
  let text = '';
  req.setEncoding('utf8');
  req.on('data', (c: string) => (text += c));
  req.on('end', async () => {
    let b: Record<string, string>;
    try {
      b = JSON.parse(text);
    } catch {
      return send(res, 400, { status: 400, detail: 'the body is not valid JSON' }, 'application/problem+json');
    }
    if (!validate(b)) return send(res, 400, { status: 400, errors: validate.errors }, 'application/problem+json');
    const path = fxVendorPath(b);
    try {
      const r = await pool.request({ method: 'GET', path, headers: { accept: 'application/json' } });
      const answer = await r.body.text();
      if (r.statusCode !== 200) return send(res, 502, { status: 502, code: 'GC027' }, 'application/problem+json');
      const v = JSON.parse(answer).body;
      const out = fxAnswer(v);
      if (!output(out)) return send(res, 502, { status: 502, code: 'GC027' }, 'application/problem+json');
      send(res, 200, out);
    } catch {
      send(res, 502, { status: 502, code: 'GC027' }, 'application/problem+json');
    }
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(server.address() as any).port}\n`));
process.on('SIGTERM', () => process.exit(0));
