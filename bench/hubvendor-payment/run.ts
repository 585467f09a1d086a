// Payment initiation benchmark: POST /payments/payment-orders through the engine (route
// initiate-payment-order) against the hand-written limit (bench/hubvendor-payment/baseline.ts), same
// hubvendor simulator in its own process, same bounded autocannon load, interleaved rounds. Every request
// creates a new payment order (no endToEndIdentification: a fresh idempotency key per request).
//   node --import tsx bench/hubvendor-payment/run.ts          (SECONDS=10 CONNECTIONS=20 ROUNDS=3 to change)
//   OUT=docs/benchmarks-payments.md appends the result table there.
import { appendFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { engineVersusBaseline, table, roundsTable } from '../lib/harness.ts';

const seconds = Number(process.env.SECONDS ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 20);
const order = {
  paymentType: 'SEPA',
  requestedExecutionDate: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
  originatorAccount: {
    name: 'Acme GmbH',
    identification: { identification: 'DE89370400440532013000', schemeName: 'IBAN' },
  },
  transferTransactionInformation: {
    instructedAmount: { amount: '100.25', currencyCode: 'EUR' },
    counterparty: { name: 'Jane Doe' },
    counterpartyAccount: { identification: { identification: 'FR1420041010050500013M02606', schemeName: 'IBAN' } },
    remittanceInformation: 'Invoice 42',
  },
};
const load = {
  method: 'POST' as const,
  path: '/payments/payment-orders',
  body: order,
  headers: { authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJiZW5jaCJ9.c2ln' },
  connections,
  seconds,
  warmupSeconds: 3,
};
const rounds = Number(process.env.ROUNDS ?? 3);
const { best: results, perRound } = await engineVersusBaseline({
  baseline: ['hand-written limit (node:http + undici Pool dispatch + ajv)', 'bench/hubvendor-payment/baseline.ts'],
  engine: ['engine (initiate-payment-order route)', 'routes/hubvendor-payment'],
  load,
  rounds,
  // every order is a new one: its ids and creation time differ, the rest of the answer must not
  varying: ['bankReferenceId', 'instructionId', 'createdAt'],
});
const head = `Payment initiation (POST /payments/payment-orders -> POST hubvendor paymentOrders), ${connections} connections, ${seconds} s after 3 s warm-up, ${new Date().toISOString()}, node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg()
  .map((l) => l.toFixed(1))
  .join(' ')}`;
const out = `\n${head}, ${rounds} interleaved rounds (best of each)\n\n${table(results, results[0].name)}\n\n${roundsTable(perRound)}\n`;
console.log(out);
if (process.env.OUT) appendFileSync(process.env.OUT, out);
