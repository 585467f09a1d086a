// The FX route's work written for start-up: node:http both ways (the server, and a keep-alive Agent
// to the vendor, whose parser node has loaded already), the request and the answer checked by hand
// against the route's two schemas, and nothing else loaded. It starts within a few ms of a bare
// node:http server and at its memory, where undici (about 55 ms and 15 MiB to load and make its
// first call) and compiling the schemas with Ajv (about 65 ms and 11 MiB) are what the other
// hand-written programs pay: the start-up rows take the faster and smaller of the hand-written
// programs as their reference. Its throughput is well below the limit's (node:http's client costs
// some 40 µs more a request than undici's `dispatch`), which the table shows too. The checks are by
// hand rather than engine/core/functions.ts's amountValid, which would bring ibantools and
// node:crypto into its start. Prints its URL.
import { Agent, createServer, request, type ServerResponse } from 'node:http';
import { CURRENCY_MINOR_UNITS } from '../../engine/core/currencies.ts';
import { fxAnswer, fxVendorPath } from '../lib/fx-vendor.ts';

const vendor = new URL(process.argv[2]);
const agent = new Agent({ keepAlive: true, maxSockets: 200 });
const KEYS = new Set(['buyCurrency', 'sellCurrency', 'transactionAmount', 'transactionAmountType', 'rateType']);
const RATE_TYPES = new Set(['SPOT', 'FORWARD', 'CASH', 'TRANSFER']);
const AMOUNT = /^\d{1,15}(\.\d+)?$/;
const PROBLEM = 'application/problem+json';
const BAD_GATEWAY = JSON.stringify({ status: 502, code: 'GC027' });

const currency = (v: unknown) => typeof v === 'string' && Object.hasOwn(CURRENCY_MINOR_UNITS, v);

/** The request schema and the amount's minor units, by hand: the first field in error, or undefined. */
function invalid(b: unknown): string | undefined {
  if (typeof b !== 'object' || b === null || Array.isArray(b)) return '';
  const o = b as Record<string, unknown>;
  for (const k in o) if (!KEYS.has(k)) return `/${k}`;
  if (!currency(o.buyCurrency)) return '/buyCurrency';
  if (!currency(o.sellCurrency)) return '/sellCurrency';
  const type = o.transactionAmountType;
  if (type !== undefined && type !== 'BUY' && type !== 'SELL') return '/transactionAmountType';
  if (o.rateType !== undefined && !RATE_TYPES.has(o.rateType as string)) return '/rateType';
  const amount = o.transactionAmount;
  if (amount !== undefined) {
    if (typeof amount !== 'string' || !AMOUNT.test(amount) || !/[1-9]/.test(amount)) return '/transactionAmount';
    const minor = CURRENCY_MINOR_UNITS[(type === 'SELL' ? o.sellCurrency : o.buyCurrency) as string];
    if ((amount.split('.')[1] ?? '').length > minor) return '/transactionAmount';
  }
  return undefined;
}

/** The response schema by hand: required strings and positive rates. */
function answerValid(a: Record<string, unknown>): boolean {
  const rate = (v: unknown) => typeof v === 'number' && v > 0;
  const text = (v: unknown) => v === undefined || typeof v === 'string';
  return (
    typeof a.buyCurrency === 'string' &&
    typeof a.sellCurrency === 'string' &&
    rate(a.buyRate) &&
    rate(a.sellRate) &&
    (a.middleRate === undefined || rate(a.middleRate)) &&
    ['currencyMarket', 'quotationCode', 'rateDate', 'transactionAmount', 'transactionAmountType'].every((k) =>
      text(a[k]),
    )
  );
}

function reply(res: ServerResponse, status: number, text: string, type = 'application/json') {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) }).end(text);
}

const server = createServer((req, res) => {
  let text = '';
  req.setEncoding('utf8');
  req.on('data', (c: string) => (text += c));
  req.on('end', () => {
    let b: Record<string, string>;
    try {
      b = JSON.parse(text);
    } catch {
      return reply(res, 400, JSON.stringify({ status: 400, detail: 'the body is not valid JSON' }), PROBLEM);
    }
    const field = invalid(b);
    if (field !== undefined) return reply(res, 400, JSON.stringify({ status: 400, errors: [{ field }] }), PROBLEM);
    const path = fxVendorPath(b);
    const call = request(
      { host: vendor.hostname, port: vendor.port, path, agent, headers: { accept: 'application/json' } },
      (answer) => {
        let body = '';
        answer.setEncoding('utf8');
        answer.on('data', (c: string) => (body += c));
        answer.on('end', () => {
          try {
            if (answer.statusCode !== 200) return reply(res, 502, BAD_GATEWAY, PROBLEM);
            const v = JSON.parse(body).body;
            const out = fxAnswer(v);
            if (!answerValid(out)) return reply(res, 502, BAD_GATEWAY, PROBLEM);
            reply(res, 200, JSON.stringify(out));
          } catch {
            reply(res, 502, BAD_GATEWAY, PROBLEM);
          }
        });
      },
    );
    call.on('error', () => reply(res, 502, BAD_GATEWAY, PROBLEM));
    call.end();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(server.address() as any).port}\n`));
process.on('SIGTERM', () => process.exit(0));
